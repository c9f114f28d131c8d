"""A stand-in model, to try the app without an account: ``claude_sync.testing``'s fake
Anthropic API on 127.0.0.1, playing a tiny agent. Whatever it is asked, it wants to run
``echo <the prompt's first word> >> notes.txt`` with Bash; once that call has a result it
answers "Done.", or, when a person denied it, repeats what it was told.

    python -m approvals_app.fake_model

It takes a free port, prints the variables to export for the workers (the CLI they start reads
them), then serves until Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import re
import signal
import threading
from typing import Any, Optional

from claude_sync.testing import FakeAnthropicAPI, text, tool_use
from claude_sync.testing.fake_api import Answer, ApiRequest
from claude_sync.testing.offline import FAKE_API_KEY, QUIET_FLAGS


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def agent(request: ApiRequest) -> Optional[Answer]:
    """One turn of the tiny agent (the fake API's responder)."""
    messages = request.messages
    results = [b for m in messages if isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]  # fmt: skip
    if results:
        said = _text_of(results[-1].get("content"))
        return text(f"I did not run it. I was told: {said}") if results[-1].get("is_error") else text("Done.")
    prompt = _text_of(messages[0].get("content")) if messages else ""
    # The prompt's last line is what the person typed (the CLI may put reminders before it).
    words = re.findall(r"[A-Za-z0-9]+", prompt.strip().splitlines()[-1] if prompt.strip() else "")
    return tool_use("Bash", {"command": f"echo {words[0] if words else 'hello'} >> notes.txt"})


def main(argv: Optional[list] = None) -> None:
    argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0]).parse_args(argv)
    api = FakeAnthropicAPI(responder=agent, idle_timeout=None, lifetime=None)
    api.start()
    print("# export these where the workers run:")
    print(f"export ANTHROPIC_BASE_URL={api.base_url} ANTHROPIC_API_KEY={FAKE_API_KEY} "
          + " ".join(f"{flag}=1" for flag in QUIET_FLAGS), flush=True)  # fmt: skip
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        api.stop()


if __name__ == "__main__":
    main()
