"""``python -m claude_sync "prompt"``: the command line (see ``claude_sync._cli``)."""

from ._cli.program import run_program

if __name__ == "__main__":
    run_program()
