"""Structured outputs: a pydantic model in, a validated instance of it out.

    python examples/structured_outputs.py
    python examples/structured_outputs.py "Extract info: Li Wei (li@example.com), Team plan, no demo"

The port of the official SDK's ``examples/structured_outputs_with_wrapper.py``. That example
needs a wrapper around the CLI that patches the HTTP requests, then parses the assistant's
text as JSON and validates it by hand; it ends wishing for
``query(prompt=..., output_format=EmailExtraction)``. Here that is all it takes: the same
model, prompt and options, plus ``output_format=EmailExtraction``. The CLI makes the model
answer through its ``StructuredOutput`` tool, checks the answer against the model's schema
(asking again if it does not fit), and the ``ResultMessage`` carries the validated model.

Needs pydantic (``pip install pydantic``); claude_sync itself does not.
"""

import sys

from pydantic import BaseModel, Field

from claude_sync import ClaudeAgentOptions, ResultMessage, query


class EmailExtraction(BaseModel):
    """Contact details pulled out of a message."""

    name: str = Field(description="Full name extracted from the text")
    email: str = Field(description="Email address extracted from the text")
    plan_interest: str = Field(description="The plan or product they are interested in")
    demo_requested: bool = Field(description="Whether they requested a demo or meeting")


def main() -> None:
    prompt = " ".join(sys.argv[1:]) or (
        "Extract info: Sarah Chen (sarah@company.com) wants Professional plan, requested demo"
    )
    options = ClaudeAgentOptions(
        permission_mode="bypassPermissions",
        max_turns=1,
        output_format=EmailExtraction,
    )
    for message in query(prompt, options=options):
        if isinstance(message, ResultMessage):
            found: EmailExtraction = message.parsed_output
            print(f"Name: {found.name}")
            print(f"Email: {found.email}")
            print(f"Plan: {found.plan_interest}")
            print(f"Demo: {found.demo_requested}")
            print(f"[{message.subtype}, {message.num_turns} turn(s), ${message.total_cost_usd or 0.0:.4f}]")


if __name__ == "__main__":
    main()
