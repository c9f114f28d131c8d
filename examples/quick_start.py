"""Quick start: one question, one answer, with the `claude` CLI you are logged in with.

    python examples/quick_start.py "What is 2 + 2?"

Offline, against the fake API that ships with claude_sync (no account; it quotes your prompt):

    python -m claude_sync.testing.with_fake_api python examples/quick_start.py "What is 2 + 2?"
"""

import sys

from claude_sync import AssistantMessage, ClaudeAgentOptions, CLINotFoundError, ResultMessage, TextBlock, query


def main() -> None:
    prompt = " ".join(sys.argv[1:]) or "What is 2 + 2? Answer in one short sentence."
    options = ClaudeAgentOptions(max_turns=1)
    for message in query(prompt, options=options):
        if isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, TextBlock):
                    print(block.text)
        elif isinstance(message, ResultMessage):
            cost = message.total_cost_usd or 0.0
            print(f"[{message.subtype}, {message.num_turns} turn(s), ${cost:.4f}]")


if __name__ == "__main__":
    try:
        main()
    except CLINotFoundError as exc:  # say how to install it, without a traceback
        sys.exit(str(exc))
