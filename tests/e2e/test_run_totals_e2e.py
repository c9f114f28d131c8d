"""Issue 37 against the real CLI: a run is everything until the CLI is idle, and its figures
cover all of it.

The fake model starts a background ``Agent`` whose subagent runs ``Bash`` and answers; the
main turn ends (the first result); the subagent's end wakes the CLI for another turn (the
second result). ``RunResult``'s tokens must equal the sum over every model request the fake
API answered for the run (the subagent's included), its turns the main agent's requests, and
its cost what the CLI reports for the whole run — from ``run()`` on a fresh CLI and from an
``AgentPool`` on a CLI reused after ``/clear``; ``show()`` and ``claude-sync -v`` say the same.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any, List, Optional

import pytest
from background_agent import RUN_PROMPT, is_subagent, responder, said

from claude_sync import AgentPool, ResultMessage, RunResult, query, run, show
from claude_sync.testing import hermetic_env
from claude_sync.testing.fake_api import ApiRequest, FakeAnthropicAPI

from .harness import OptionsFactory, cli_is_at_least

pytestmark = pytest.mark.e2e

WAIT = 120.0
ROOT = Path(__file__).resolve().parents[2]


def _run_requests(api: FakeAnthropicAPI) -> List[ApiRequest]:
    """The turn requests of the background run (the plain run's are not)."""
    return [r for r in api.turn_requests() if RUN_PROMPT in said(r) or is_subagent(r)]


def _assert_figures_match_the_api(result: RunResult[Any], requests: List[ApiRequest], cost: float) -> None:
    assert all(r.usage is not None for r in requests), requests
    main = [r for r in requests if not is_subagent(r)]
    assert len(requests) - len(main) == 2 and len(main) == 3, [(r.kind, r.answer) for r in requests]
    assert len(result.results) == 2 and result.result is result.results[-1], result.results
    assert result.text == "woken turn done"
    assert result.usage is not None
    assert result.usage["input_tokens"] == sum(r.usage["input_tokens"] for r in requests)  # type: ignore[index]
    assert result.usage["output_tokens"] == sum(r.usage["output_tokens"] for r in requests)  # type: ignore[index]
    assert result.num_turns == len(main) == sum(r.num_turns for r in result.results)
    assert result.duration_ms == sum(r.duration_ms for r in result.results)
    assert result.total_cost_usd == pytest.approx(cost)
    # The agents add up to the run: main's tokens from the results, the subagent's from its task.
    assert sum(agent.total_tokens or 0 for agent in result.agents) == sum(result.usage.values()), result.agents
    assert sum(agent.model_requests for agent in result.agents) <= len(requests)


def test_run_on_a_fresh_cli_counts_every_request_of_a_run_that_ends_twice(
    e2e_options: OptionsFactory, fake_api: FakeAnthropicAPI
) -> None:
    api = FakeAnthropicAPI(responder=responder).start()
    try:
        options = e2e_options(env={"ANTHROPIC_BASE_URL": api.base_url}, allowed_tools=["Bash", "Agent", "Task"], max_turns=6)
        result = run(RUN_PROMPT, options=options, timeout=WAIT)
    finally:
        api.stop()
    # A fresh CLI's running total is the whole run's cost.
    _assert_figures_match_the_api(result, _run_requests(api), result.results[-1].total_cost_usd or 0.0)
    assert result.results[0].total_cost_usd < result.results[-1].total_cost_usd  # type: ignore[operator]


def test_a_pooled_run_on_a_reused_cli_counts_only_its_own_requests(
    e2e_options: OptionsFactory, fake_api: FakeAnthropicAPI, real_cli_path: str
) -> None:
    api = FakeAnthropicAPI(responder=responder).start()
    try:
        options = e2e_options(env={"ANTHROPIC_BASE_URL": api.base_url}, allowed_tools=["Bash", "Agent", "Task"], max_turns=6)
        with AgentPool(options, max_workers=1) as pool:
            first = pool.submit("say something plain", timeout=WAIT)
            plain = first.result(WAIT)
            second = pool.submit(RUN_PROMPT, timeout=WAIT)
            background = second.result(WAIT)
    finally:
        api.stop()
    assert plain.text == "plain answer" and first.cli_pid == second.cli_pid  # reused after /clear
    # The CLI's whole-run cost: its running total at the run's end minus what it said before
    # (2.1.197 keeps a process-wide total across /clear; 2.1.330+ restarts it at /clear).
    before = 0.0 if cli_is_at_least(real_cli_path, "2.1.330") else plain.results[-1].total_cost_usd or 0.0
    _assert_figures_match_the_api(background, _run_requests(api), (background.results[-1].total_cost_usd or 0.0) - before)


def test_show_and_the_command_line_report_the_whole_run(e2e_options: OptionsFactory, real_cli_path: str, tmp_path: Any) -> None:
    api = FakeAnthropicAPI(responder=responder).start()
    try:
        options = e2e_options(env={"ANTHROPIC_BASE_URL": api.base_url}, allowed_tools=["Bash", "Agent", "Task"], max_turns=6)
        screen = io.StringIO()
        shown = show(query(RUN_PROMPT, options=options, timeout=WAIT), file=screen)
        env = hermetic_env(tmp_path / "command", api.base_url, PYTHONPATH=str(ROOT))
        command = subprocess.run(
            [sys.executable, "-m", "claude_sync", "-v", "--cli-path", real_cli_path, "--cwd", str(options.cwd),
             "--allowed-tools", "Bash,Agent,Task", RUN_PROMPT],
            env=env, capture_output=True, text=True, timeout=WAIT, check=False,
        )  # fmt: skip
    finally:
        api.stop()
    results = [m for m in shown if isinstance(m, ResultMessage)]
    assert len(results) == 2
    whole = RunResult.from_messages(list(shown))
    tokens = f"{whole.usage['input_tokens']:,} in / {whole.usage['output_tokens']:,} out tokens"  # type: ignore[index]
    last_line = [line for line in screen.getvalue().splitlines() if " turns · " in line][-1]
    assert f"{whole.num_turns} turns · {tokens} · ${whole.total_cost_usd:.4f} · CLI " in last_line, last_line
    assert command.returncode == 0, command.stderr
    summary = [line for line in command.stderr.splitlines() if line.startswith("session ")][-1]
    assert " · 3 turns · " in summary and " · 2 results · wall " in summary and " · CLI " in summary, summary
