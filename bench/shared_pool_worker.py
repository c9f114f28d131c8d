"""One process of ``bench/shared_pool.py``: what a user's short script or worker process does.

    python bench/shared_pool_worker.py run PROMPT          # the 5-line run() script
    python bench/shared_pool_worker.py pool N PROMPT       # AgentPool(max_workers=2), N runs

Leasing is whatever the environment says (``CLAUDE_SYNC_SHARED_POOL``): the benchmark runs the
same file cold and leased. Prints one JSON line: the results' texts and the CLI pids seen.
"""

from __future__ import annotations

import json
import sys


def main(argv: list) -> int:
    if argv[0] == "run":  # what the 5-line script imports, nothing more
        from claude_sync import ClaudeAgentOptions, run

        result = run(argv[1], options=ClaudeAgentOptions(max_turns=1))
        print(json.dumps({"texts": [result.text]}))
        return 0
    from claude_sync import AgentPool, ClaudeAgentOptions

    count, prompt = int(argv[1]), argv[2]
    with AgentPool(ClaudeAgentOptions(max_turns=1), max_workers=2) as pool:
        texts = [outcome.text for outcome in pool.map([f"{prompt} {n}" for n in range(count)], timeout=600)]
    print(json.dumps({"texts": texts}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
