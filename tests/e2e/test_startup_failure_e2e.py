"""The real CLI refusing to start (an unknown flag) is a ``ProcessError`` with its exit code
and its own words on stderr, for ``query()`` and ``ClaudeSDKClient`` alike."""

from __future__ import annotations

from typing import Any

import pytest

from claude_sync import ClaudeSDKClient, CLIConnectionError, ProcessError, query

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("how", ["query", "client"])
def test_an_unknown_flag_is_a_process_error_with_the_clis_words(how: str, e2e_options: Any) -> None:
    options = e2e_options(extra_args={"no-such-flag-for-claude-sync": None}, stderr=lambda line: None)
    with pytest.raises(ProcessError) as raised:
        if how == "query":
            list(query("hi", options=options))
        else:
            with ClaudeSDKClient(options):
                pass
    error = raised.value
    assert not isinstance(error, CLIConnectionError)
    assert error.exit_code == 1
    assert error.stderr is not None and "no-such-flag-for-claude-sync" in error.stderr
    assert str(error).startswith("Claude Code CLI exited during start-up (exit code 1)")
