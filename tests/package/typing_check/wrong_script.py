"""Deliberately wrong uses of the public API: ``mypy --strict`` must report each line
marked ``# error`` (``tests/wire/test_signatures.py``), which proves the check can fail."""

from claude_sync import ClaudeAgentOptions, ResultMessage, query, run

options = ClaudeAgentOptions(max_turns="3")  # error
for message in query(42):  # error
    if isinstance(message, ResultMessage):
        print(message.total_cost_usd + 1)  # error
ClaudeAgentOptions(max_turn=3)  # error


class Invoice:  # not a dataclass, but any class type-checks: the error comes at run time
    total: float


print(run("x", output_format=Invoice).output.totl)  # error
print(run("x", output_format=Invoice).output.total + "1")  # error
