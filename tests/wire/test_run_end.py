"""``_wire.run_end``: when a one-shot run the CLI may call back is over (the official SDK's
run-end cases, ``tests/test_query.py::TestStdinStaysOpenUntilIdle`` of 0.2.188, as pure
state transitions)."""

from __future__ import annotations

from claude_sync._wire.run_end import DEFAULT_CEILING, RunEnd, run_end_ceiling


def started(run: RunEnd, task_id: str = "t1", task_type: str = "local_agent") -> None:
    run.task_frame("task_started", task_id, task_type, None, 0.0)


def notified(run: RunEnd, task_id: str = "t1") -> None:
    run.task_frame("task_notification", task_id, None, "completed", 0.0)


def test_a_task_settled_before_the_result_keeps_the_run_open_until_idle() -> None:
    run = RunEnd(calls_back=True)
    run.state_changed("running", 0.0)
    started(run)
    notified(run)
    run.result(0.0)
    assert not run.due(0.0)
    run.result(0.0)
    assert not run.due(0.0)
    run.state_changed("idle", 0.0)
    assert run.due(0.0)


def test_without_state_reports_the_result_ends_the_run_unless_an_agent_is_in_flight() -> None:
    run = RunEnd(calls_back=True)
    run.result(0.0)
    assert run.due(0.0)
    run = RunEnd(calls_back=True)
    started(run)
    run.result(0.0)
    assert not run.due(1e9)  # no ceiling without state reports
    notified(run)
    run.turn_activity()
    run.result(0.0)
    assert run.due(0.0)


def test_background_shells_are_not_tracked() -> None:
    run = RunEnd(calls_back=True)
    started(run, task_type="local_bash")
    run.result(0.0)
    assert run.due(0.0)


def test_idle_just_before_the_result_ends_the_run_at_the_result() -> None:
    run = RunEnd(calls_back=True)
    run.state_changed("running", 0.0)
    run.state_changed("idle", 0.0)
    assert not run.due(0.0)
    run.result(0.0)
    assert run.due(0.0)


def test_idle_before_any_result_does_not_end_the_run() -> None:
    run = RunEnd(calls_back=True)
    run.state_changed("idle", 0.0)
    run.state_changed("running", 0.0)
    run.result(0.0)
    assert not run.due(0.0)
    run.state_changed("idle", 0.0)
    assert run.due(0.0)


def test_idle_with_a_tracked_task_in_flight_keeps_the_run_open() -> None:
    run = RunEnd(calls_back=True)
    run.state_changed("running", 0.0)
    started(run)
    run.result(0.0)
    run.state_changed("idle", 0.0)
    assert not run.due(0.0)
    notified(run)
    run.state_changed("running", 0.0)
    run.result(0.0)
    run.state_changed("idle", 0.0)
    assert run.due(0.0)


def test_work_taken_up_after_idle_reopens_the_run() -> None:
    for wake in ("running", "requires_action"):
        run = RunEnd(calls_back=True)
        run.state_changed("running", 0.0)
        run.result(0.0)
        run.state_changed("idle", 0.0)
        assert run.due(0.0)
        run.state_changed(wake, 0.0)
        assert not run.due(0.0)
        run.result(0.0)
        run.state_changed("idle", 0.0)
        assert run.due(0.0)


def test_a_prompt_written_after_the_run_ended_owes_a_run_of_its_own() -> None:
    run = RunEnd(calls_back=True)
    run.state_changed("running", 0.0)
    run.result(0.0)
    run.state_changed("idle", 0.0)
    assert run.due(0.0)
    run.user_message_sent()
    assert not run.due(0.0)
    run.state_changed("running", 0.0)
    run.result(0.0)
    assert not run.due(0.0)
    run.state_changed("idle", 0.0)
    assert run.due(0.0)


def test_the_ceiling_ends_a_run_that_stays_running_between_turns() -> None:
    run = RunEnd(calls_back=True, ceiling=10.0)
    run.state_changed("running", 0.0)
    run.result(100.0)
    assert not run.due(109.9) and run.due(110.0)


def test_the_ceiling_waits_for_a_turn_under_way_a_request_and_a_tracked_agent() -> None:
    run = RunEnd(calls_back=True, ceiling=10.0)
    run.state_changed("running", 0.0)
    run.result(100.0)
    run.turn_activity()  # a woken turn started: no ceiling while it runs
    assert not run.due(1000.0)
    run.result(1000.0)
    run.state_changed("requires_action", 1001.0)  # answering a request: no ceiling
    assert not run.due(5000.0)
    run.state_changed("running", 5000.0)
    started(run, "t2")
    assert not run.due(5010.0)  # the ceiling passed, but an agent is in flight: it starts over
    run.task_frame("task_updated", "t2", None, "killed", 6000.0)
    assert not run.due(6009.0) and run.due(6010.0)
    none = RunEnd(calls_back=True, ceiling=None)
    none.state_changed("running", 0.0)
    none.result(0.0)
    assert not none.due(1e12)


def test_the_ceiling_is_read_as_the_cli_reads_it() -> None:
    name = "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS"
    assert run_end_ceiling({}, {}) == DEFAULT_CEILING == 600.0
    assert run_end_ceiling({name: "2500"}, {name: "1"}) == 2.5  # options.env wins
    assert run_end_ceiling({}, {name: "0"}) is None
    for odd in ("-5", "1e6", "soon"):
        assert run_end_ceiling({name: odd}, {}) == DEFAULT_CEILING
