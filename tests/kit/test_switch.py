"""The kit's switch: with it on, every ``query()``/``ClaudeSDKClient``/``run()``/``AgentPool``
in the process plays a script, and one that has none fails with ``UnscriptedRunError`` before
any CLI starts — even where an installed ``claude-agent-sdk`` bundles a CLI that discovery
finds first."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Dict, Iterator, List

import pytest
from helpers import wait_until

from claude_sync import AgentPool, ClaudeAgentOptions, ClaudeSDKClient, CLIConnectionError, ProcessError, query, run
from claude_sync._options.discovery import find_cli
from claude_sync.testing import (
    ScriptedCLI,
    UnscriptedRunError,
    no_real_cli,
    texts,
    use_scripted_cli,
)

# ----------------------------------------------------------------------------- nothing reaches a real CLI


@pytest.fixture
def bundled_sdk_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A stand-in ``claude_agent_sdk`` package on ``sys.path`` whose bundled CLI leaves a
    mark when it is started: what discovery finds first on a machine with the official SDK."""
    package = tmp_path / "site" / "claude_agent_sdk"
    (package / "_bundled").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    marker = tmp_path / "bundled-cli-was-started"
    cli = package / "_bundled" / "claude"
    cli.write_text(f"#!/bin/sh\n: > {marker}\nexit 1\n")
    cli.chmod(cli.stat().st_mode | stat.S_IXUSR)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert find_cli() == str(cli)  # discovery would run it
    yield marker
    assert not marker.exists(), "the bundled CLI was started"


def test_block_in_the_environment_refuses_a_query_without_transport(
    bundled_sdk_cli: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_SYNC_TESTING", "block")
    with pytest.raises(UnscriptedRunError, match="nothing was started"):
        list(query("hi"))
    with pytest.raises(UnscriptedRunError):
        ClaudeSDKClient().connect()
    with pytest.raises(UnscriptedRunError):
        run("hi")


def test_no_real_cli_refuses_every_entry_point(bundled_sdk_cli: Path) -> None:
    with no_real_cli():
        with pytest.raises(UnscriptedRunError, match="no_real_cli"):
            list(query("hi", options=ClaudeAgentOptions(cli_path="claude")))
        with AgentPool(max_workers=1) as pool:
            with pytest.raises(UnscriptedRunError):
                pool.submit("hi").result(30)
    with pytest.raises(Exception) as started:  # the switch is off again: discovery's CLI runs
        list(query("hi"))
    assert not isinstance(started.value, UnscriptedRunError)
    assert bundled_sdk_cli.exists()
    bundled_sdk_cli.unlink()  # the fixture checks nothing ran *with* the switch on


@pytest.mark.claude_cli(assert_all_runs_scripted=False)  # the refused run is the point
def test_the_claude_cli_fixture_is_the_switch(claude_cli: ScriptedCLI, bundled_sdk_cli: Path) -> None:
    with pytest.raises(UnscriptedRunError, match="claude_cli fixture.*no steps"):
        list(query("hi"))
    claude_cli.answer("4")
    assert texts(list(query("2 + 2?"))) == ["4"]


# ----------------------------------------------------------------------------- runs play the script


def test_every_entry_point_plays_the_fixtures_script(claude_cli: ScriptedCLI) -> None:
    for _ in range(4):  # one scripted run each: a run is played once
        claude_cli.answer("scripted")
    real_looking = ClaudeAgentOptions(cli_path="/usr/local/bin/claude", model="opus")
    assert texts(list(query("a", options=real_looking))) == ["scripted"]
    with ClaudeSDKClient(real_looking) as client:
        client.query("b")
        assert texts(list(client.receive_response())) == ["scripted"]
    assert run("c", options=real_looking).text == "scripted"
    with AgentPool(real_looking, max_workers=1, reuse=False) as pool:
        assert pool.submit("d").result(30).text == "scripted"
    claude_cli.verify(runs=4)


def test_a_sequence_plays_one_script_per_run_then_refuses() -> None:
    first, second = ScriptedCLI.answer("one"), ScriptedCLI.answer("two")
    with use_scripted_cli([first, second]) as router:
        assert texts(list(query("a"))) == ["one"]
        assert texts(list(query("b"))) == ["two"]
        with pytest.raises(UnscriptedRunError, match="no script left.*2 run"):
            list(query("c"))
    assert router.routed == 2
    first.verify(runs=1)
    second.verify(runs=1)


@pytest.mark.claude_cli(assert_all_runs_scripted=False)  # the refused third run is the point
def test_answers_queue_one_per_run(claude_cli: ScriptedCLI) -> None:
    claude_cli.answer("1")
    claude_cli.answer("2")
    assert claude_cli.scripted_runs == 2
    assert [run("a").text, run("b").text] == ["1", "2"]
    with pytest.raises(UnscriptedRunError, match="no script left.*all 2 scripted run"):
        run("c")  # a third run is refused (and fails the test: see test_pytest_plugin)
    claude_cli.verify(runs=2)


@pytest.mark.claude_cli(assert_all_runs_scripted=False)
def test_a_scripted_run_is_played_once(claude_cli: ScriptedCLI) -> None:
    claude_cli.answer("only once")
    assert run("a").text == "only once"
    with pytest.raises(UnscriptedRunError, match="all 1 scripted run"):
        run("b")


def test_runs_are_matched_by_prompt_whatever_the_order() -> None:
    cli = ScriptedCLI().answer("for b", prompt="b").answer("for a", prompt="a").answer("for anything")
    with use_scripted_cli(cli):
        assert run("a").text == "for a"
        assert run("z").text == "for anything"
        assert run("b").text == "for b"
    cli.verify(runs=3)


def test_a_prompt_no_scripted_run_expects_fails_the_run_and_verify() -> None:
    cli = ScriptedCLI().answer("yes", prompt="expected")
    with use_scripted_cli(cli):
        with pytest.raises(ProcessError, match="no scripted run left for the user message 'other'.*expecting: 'expected'"):
            run("other")
    with pytest.raises(AssertionError, match="found no scripted run"):
        cli.verify()


def test_a_frame_before_the_first_user_message_fails_verify() -> None:
    cli = ScriptedCLI().answer("never")
    with use_scripted_cli(cli):
        with ClaudeSDKClient() as client:
            with pytest.raises(CLIConnectionError, match="before the first user message: unexpected control_request .set_model."):
                client.set_model("opus", timeout=10)
    with pytest.raises(AssertionError, match="before the first user message"):
        cli.verify()


def test_a_scripted_run_left_unplayed_fails_verify() -> None:
    cli = ScriptedCLI.answer("1").answer("2")
    with use_scripted_cli(cli):
        assert run("a").text == "1"
    with pytest.raises(AssertionError, match=r"1 scripted run\(s\) never played, the first: scripted run 2 of 2"):
        cli.verify()


def test_a_pool_reuses_its_cli_for_the_next_scripted_run() -> None:
    cli = ScriptedCLI().answer("x").answer("y").answer("z")
    with use_scripted_cli(cli):
        with AgentPool(max_workers=1) as pool:
            assert [r.text for r in pool.map(["1", "2", "3"], timeout=60)] == ["x", "y", "z"]
            # the third run's reset (counted as reused) may still be under way when map returns
            wait_until(lambda: pool.stats()["parked"] == 1, what="the CLI reset and parked after the third run")
            assert pool.stats()["started"] == 1 and pool.stats()["reused"] == 3  # one CLI, /clear after each run
    cli.verify(runs=3)


def test_a_list_of_scripts_runs_in_a_pool_matched_by_prompt() -> None:
    scripts = [ScriptedCLI.answer(f"answer {n}", prompt=f"question {n}") for n in (1, 2, 3)]
    with use_scripted_cli(scripts):
        with AgentPool(max_workers=3) as pool:
            texts_ = [r.text for r in pool.map(["question 3", "question 1", "question 2"], timeout=60)]
    assert texts_ == ["answer 3", "answer 1", "answer 2"]
    for script in scripts:
        script.verify(runs=1)


def test_a_script_of_several_runs_is_not_installed_whole(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path).answer("1").answer("2")
    with pytest.raises(ValueError, match="holds 2"):
        cli.install()
    with use_scripted_cli(cli, subprocess=True):  # the switch installs one run per spawn
        assert [run("a").text, run("b").text] == ["1", "2"]
    cli.verify(runs=2)


def test_a_function_picks_the_script_by_options() -> None:
    scripts = {"opus": ScriptedCLI.answer("big"), "haiku": ScriptedCLI.answer("small")}
    with use_scripted_cli(lambda options: scripts[str(options.model)]):
        assert run("x", options=ClaudeAgentOptions(model="haiku")).text == "small"
        assert run("x", options=ClaudeAgentOptions(model="opus")).text == "big"


def test_as_a_subprocess_the_script_sees_the_real_flags(tmp_path: Path) -> None:
    cli = ScriptedCLI(directory=tmp_path).answer("ok")
    with use_scripted_cli(cli, subprocess=True):
        assert run("x", options=ClaudeAgentOptions(model="claude-opus-4-8", max_turns=3)).text == "ok"
    argv: List[str] = cli.last_run.argv
    assert argv[argv.index("--model") + 1] == "claude-opus-4-8"
    assert argv[argv.index("--max-turns") + 1] == "3"


def test_an_explicit_transport_is_never_rerouted(claude_cli: ScriptedCLI) -> None:
    mine = ScriptedCLI.answer("mine")
    assert texts(list(query("x", transport=mine.transport()))) == ["mine"]
    mine.verify(runs=1)
    assert claude_cli.runs == []


def test_a_recording_plays_through_the_switch(tmp_path: Path) -> None:
    from claude_sync.testing import RecordingTransport, recording_transport

    source = ScriptedCLI.answer("recorded answer", prompt="hello")
    path = tmp_path / "session.jsonl"
    recorder = RecordingTransport(source.transport(), path)
    assert texts(list(query("hello", transport=recorder))) == ["recorded answer"]
    with use_scripted_cli(ScriptedCLI.from_recording(path)):
        assert run("hello").text == "recorded answer"
        with pytest.raises(UnscriptedRunError, match="record with it off"):
            recording_transport(ClaudeAgentOptions(), tmp_path / "again.jsonl")


# ----------------------------------------------------------------------------- transports for run() and AgentPool


def test_run_takes_a_transport() -> None:
    cli = ScriptedCLI.answer("via transport")
    assert run("x", transport=cli.transport()).text == "via transport"
    cli.verify(runs=1)


def test_agent_pool_takes_a_transport_factory() -> None:
    cli = ScriptedCLI.answer("pooled")
    seen: List[ClaudeAgentOptions] = []

    def factory(options: ClaudeAgentOptions) -> object:
        seen.append(options)
        return cli.transport()

    options = ClaudeAgentOptions(model="m")
    with AgentPool(options, max_workers=2, reuse=False, transport_factory=factory) as pool:  # type: ignore[arg-type]
        assert [r.text for r in pool.map(["a", "b", "c"], timeout=60)] == ["pooled"] * 3
    assert len(seen) == 3 and all(o == options for o in seen)  # the copy each run was submitted with
    cli.verify(runs=3)


def test_a_transport_factory_must_be_callable() -> None:
    with pytest.raises(TypeError, match="transport_factory must be callable"):
        AgentPool(transport_factory="scripted")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- where the CLI will really call (issue 26.7)

FAKE = "http://127.0.0.1:9/fake-api"
PAID = "https://api.anthropic.com"


@pytest.fixture
def judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The switch on by ``CLAUDE_SYNC_TESTING=block``, ``FAKE`` allowed (as a started
    ``FakeAnthropicAPI`` is), an empty HOME and work folder; yields the work folder."""
    from claude_sync._engine import stand_in

    for name in ("ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_SYNC_TESTING", "block")
    (tmp_path / "work").mkdir()
    stand_in.allow_base_url(FAKE)
    try:
        yield tmp_path / "work"
    finally:
        stand_in.disallow_base_url(FAKE)


def _settings(env: Dict[str, str]) -> str:
    return json.dumps({"env": env})


def _blocked(options: ClaudeAgentOptions) -> bool:
    import os

    from claude_sync._engine.stand_in import blocks

    return blocks(options, os.environ)


def test_settings_that_send_the_cli_elsewhere_are_blocked(judged: Path, tmp_path: Path) -> None:
    aimed = {"ANTHROPIC_BASE_URL": FAKE}
    assert not _blocked(ClaudeAgentOptions(env=aimed, cwd=judged))
    assert _blocked(ClaudeAgentOptions(env=aimed, cwd=judged, settings=_settings({"ANTHROPIC_BASE_URL": PAID})))
    flag = tmp_path / "flag.json"
    flag.write_text(_settings({"ANTHROPIC_BASE_URL": PAID}))
    assert _blocked(ClaudeAgentOptions(env=aimed, cwd=judged, settings=str(flag)))
    assert _blocked(ClaudeAgentOptions(env=aimed, cwd=judged, extra_args={"settings": str(flag)}))
    # and the other way round: settings that aim a CLI at the fake make it allowed
    assert not _blocked(ClaudeAgentOptions(env={"ANTHROPIC_BASE_URL": PAID}, cwd=judged, settings=_settings(aimed)))
    with pytest.raises(UnscriptedRunError, match="ANTHROPIC_BASE_URL=https://api.anthropic.com is not a running"):
        list(query("hi", options=ClaudeAgentOptions(env=aimed, cwd=judged, settings=_settings({"ANTHROPIC_BASE_URL": PAID}))))


def test_the_settings_files_the_cli_reads_count(judged: Path, tmp_path: Path) -> None:
    aimed = {"ANTHROPIC_BASE_URL": FAKE}
    user = tmp_path / "home" / ".claude"
    user.mkdir(parents=True)
    (user / "settings.json").write_text(_settings({"ANTHROPIC_BASE_URL": PAID}))
    assert _blocked(ClaudeAgentOptions(env=aimed, cwd=judged))
    assert not _blocked(ClaudeAgentOptions(env=aimed, cwd=judged, setting_sources=["project", "local"]))  # not read
    config = tmp_path / "config"
    config.mkdir()
    assert not _blocked(ClaudeAgentOptions(env=dict(aimed, CLAUDE_CONFIG_DIR=str(config)), cwd=judged))  # elsewhere
    (config / "settings.json").write_text(_settings({"ANTHROPIC_BASE_URL": PAID}))
    assert _blocked(ClaudeAgentOptions(env=dict(aimed, CLAUDE_CONFIG_DIR=str(config)), cwd=judged))
    (user / "settings.json").unlink()
    for name in ("settings.json", "settings.local.json"):
        (judged / ".claude").mkdir(exist_ok=True)
        (judged / ".claude" / name).write_text(_settings({"ANTHROPIC_BASE_URL": PAID}))
        assert _blocked(ClaudeAgentOptions(env=aimed, cwd=judged)), name
        assert not _blocked(ClaudeAgentOptions(env=aimed, cwd=judged, setting_sources=[])), name
        (judged / ".claude" / name).unlink()
    assert not _blocked(ClaudeAgentOptions(env=aimed, cwd=judged))


def test_what_cannot_be_judged_is_blocked(judged: Path, tmp_path: Path) -> None:
    aimed = {"ANTHROPIC_BASE_URL": FAKE}
    assert _blocked(ClaudeAgentOptions(env=dict(aimed, CLAUDE_CODE_USE_BEDROCK="1"), cwd=judged))
    assert _blocked(ClaudeAgentOptions(env=aimed, cwd=judged, settings=_settings({"CLAUDE_CODE_USE_VERTEX": "true"})))
    (judged / ".claude").mkdir()
    (judged / ".claude" / "settings.json").write_text("{not json")
    with pytest.raises(UnscriptedRunError, match="project settings .* is not valid JSON"):
        list(query("hi", options=ClaudeAgentOptions(env=aimed, cwd=judged)))
    assert _blocked(ClaudeAgentOptions(env=aimed, cwd=judged, settings=str(tmp_path / "missing.json")))


def test_a_settings_path_that_is_no_regular_file_is_judged_without_reading_it(judged: Path, tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "settings.fifo"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    aimed = {"ANTHROPIC_BASE_URL": FAKE}
    for path in (str(fifo), "/dev/zero", str(tmp_path)):
        assert _blocked(ClaudeAgentOptions(env=aimed, cwd=judged, settings=path)), path
