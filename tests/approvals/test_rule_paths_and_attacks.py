"""Path rules match the absolute paths the CLI hands tools; rules that can never match are
refused; hostile command lines and inputs make the policy ask, never raise."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

from claude_sync import ApprovalDecision, ApprovalGate, ApprovalPolicy, ClaudeAgentOptions, PendingApproval
from claude_sync._options.shell_commands import commands_run
from claude_sync._options.shell_scan import MAX_CHARS, scan

HOME = "/home/ann"
CWD = "/srv/app"


def asks(rule: str, tool: str, tool_input: Any, cwd: Optional[str] = CWD, home: Optional[str] = HOME) -> bool:
    return ApprovalPolicy(rules=[rule]).reason_for(tool, tool_input, cwd=cwd, home=home) is not None


# ----------------------------------------------------------------------------- path rules


@pytest.mark.parametrize(
    "rule,tool,path,expected",
    [
        ("Read(~/.ssh/*)", "Read", f"{HOME}/.ssh/id_ed25519", True),
        ("Read(~/.ssh/*)", "LS", f"{HOME}/.ssh", True),
        ("Read(~/.ssh/*)", "Read", f"{HOME}/notes.txt", False),
        ("Read(~/.ssh/*)", "Read", f"{CWD}/.ssh/id_rsa", False),
        ("Read(.env)", "Read", f"{CWD}/.env", True),
        ("Read(.env)", "Read", f"{CWD}/services/api/.env", True),  # a bare name: any depth (gitignore)
        ("Read(.env)", "Read", "/srv/other/.env", False),
        ("Read(.env)", "Read", f"{CWD}/.env.example", False),
        ("Read(./.env)", "Read", f"{CWD}/.env", True),
        ("Read(config/*)", "Read", f"{CWD}/config/prod.yml", True),
        ("Read(config/*)", "Read", f"{CWD}/config/deep/prod.yml", True),  # inside a matched directory
        ("Read(config/*)", "Read", f"{CWD}/other/config/prod.yml", False),
        ("Write(migrations/*.sql)", "Write", f"{CWD}/migrations/0001.sql", True),
        ("Write(migrations/*.sql)", "Edit", f"{CWD}/migrations/0001.sql", True),  # Edit rules: every editing tool
        ("Write(migrations/*.sql)", "Write", f"{CWD}/migrations/0001.py", False),
        ("Write(/etc/*)", "Write", "/etc/hosts", True),  # one slash: absolute ...
        ("Write(/etc/*)", "Write", f"{CWD}/etc/hosts", True),  # ... and settings-relative, both
        ("Write(/etc/*)", "Write", "/srv/etc2/hosts", False),
        ("Read(//etc/**)", "Read", "/etc/ssl/private/key.pem", True),
        ("Read(//etc/**)", "Read", f"{CWD}/etc/x", False),
        ("Read(../secrets/*)", "Read", "/srv/secrets/db.txt", True),
        ("Read(src/**/*.ts)", "Read", f"{CWD}/src/a/b/c.ts", True),
        ("Read(src/**/*.ts)", "Read", f"{CWD}/src/c.ts", True),
        ("Read(*.pe[mx])", "Read", f"{CWD}/k/server.pem", True),
        ("Read(~/.ssh/*)", "Read", f"{CWD}/../../home/ann/.ssh/id_rsa", True),  # .. cannot walk around
        ("Read(~/.ssh/*)", "Read", f"{HOME}/./.ssh//id_rsa", True),
        ("Read(~/.ssh/*)", "Read", "~/.ssh/id_rsa", True),  # a tool may expand ~ itself
        ("Read(~/.ssh/*)", "Edit", f"{HOME}/.ssh/config", True),  # editing reads the file too
        ("Read(~/.ssh/*)", "Grep", HOME, True),  # a search above the area
        ("Read(~/.ssh/*)", "Glob", f"{HOME}/.ssh", True),
        ("Read(~/.ssh/*)", "Grep", "/srv", False),
        ("Edit(src/*)", "Read", f"{CWD}/src/a.py", False),  # an Edit rule does not cover reading
    ],
)  # fmt: skip
def test_path_rules_match_the_absolute_paths_the_cli_hands_tools(rule: str, tool: str, path: str, expected: bool) -> None:
    key = "path" if tool in ("Grep", "Glob", "LS") else "file_path"
    assert asks(rule, tool, {key: path}) is expected


def test_a_search_without_a_path_searches_cwd() -> None:
    assert asks("Read(.env)", "Grep", {"pattern": "KEY"})
    assert not asks("Read(~/.ssh/*)", "Grep", {"pattern": "KEY"})
    assert asks("Read(~/.ssh/*)", "Glob", {"pattern": f"{HOME}/.ssh/*"})


@pytest.mark.parametrize("tool_input", [{}, {"file_path": 5}, {"file_path": None}, {"file_path": "relative.txt"},
                                        {"file_path": "/x\x00y"}, {"file_path": "/x\ud800"}, None, [1], "str"])  # fmt: skip
def test_a_path_it_cannot_read_asks(tool_input: Any) -> None:
    assert asks("Read(~/.ssh/*)", "Read", tool_input, cwd=None)


def test_without_cwd_or_home_a_pattern_matches_at_any_depth() -> None:
    assert asks("Read(.env)", "Read", {"file_path": "/anywhere/deep/.env"}, cwd=None)
    assert asks("Read(config/*)", "Read", {"file_path": "/x/config/a"}, cwd=None)
    assert not asks("Read(config/*)", "Read", {"file_path": "/x/conf/a"}, cwd=None)
    policy = ApprovalPolicy(rules=["Read(~/.ssh/*)"])
    assert policy.reason_for("Read", {"file_path": f"{os.path.expanduser('~')}/.ssh/id"}) is not None  # this process's home


def test_a_symlink_cannot_walk_around_a_path_rule(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("key")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "innocent").symlink_to(home / ".ssh")
    call = {"file_path": str(tmp_path / "app" / "innocent" / "id_rsa")}
    assert asks("Read(~/.ssh/*)", "Read", call, cwd=str(tmp_path / "app"), home=str(home))
    assert not asks("Read(~/.ssh/*)", "Read", {"file_path": str(tmp_path / "app" / "x")}, cwd=str(tmp_path / "app"), home=str(home))


@pytest.mark.parametrize(
    "rule",
    ["Bash(:*)", "Bash(git:* push)", "WebFetch(example.com)", "WebFetch(domain:)", "Read(domain:example.com)",
     "Read(~bob/.ssh/*)", "Read(C:\\Users\\x)", "mcp__db(drop)"],
)  # fmt: skip
def test_a_rule_that_can_never_match_is_refused(rule: str) -> None:
    with pytest.raises(ValueError, match="can never match"):
        ApprovalPolicy(rules=[rule])


def test_the_gate_passes_the_hooks_cwd_and_the_clis_home() -> None:
    gate = ApprovalGate(ApprovalPolicy(rules=["Read(~/.ssh/*)", "Read(.env)"]))
    gate.options(ClaudeAgentOptions(env={"HOME": HOME}))

    def hook(path: str) -> Dict[str, Any]:
        return gate.pre_tool_use({"tool_name": "Read", "tool_input": {"file_path": path}, "cwd": CWD}, "toolu_1", None)

    assert hook(f"{HOME}/.ssh/id_rsa")["hookSpecificOutput"]["permissionDecision"] == "defer"
    assert hook(f"{CWD}/.env")["hookSpecificOutput"]["permissionDecision"] == "defer"
    assert hook(f"{CWD}/README.md") == {}


def test_shadowing_fails_closed_too() -> None:
    policy = ApprovalPolicy(rules=["Bash(rm:*)"])
    allowed = ["Bash(ls:*)", "Bash(rm:*)", "Bash(env:*)", "Read", "Bash(git status)"]
    assert policy.shadowing_rules(allowed, "Bash", {"command": "env -u HOME rm x"}) == ("Bash(rm:*)", "Bash(env:*)")
    assert set(policy.shadowing_rules(allowed, "Bash", {"command": "$cmd x"})) == {"Bash(ls:*)", "Bash(rm:*)", "Bash(env:*)", "Bash(git status)"}
    pending = PendingApproval(session_id="0b5e3c52-4f0c-4bb4-9a55-3f4c1c1b7a01", tool_use_id="toolu_01", tool_name="Read",
                              tool_input={"file_path": f"{CWD}/.env"}, cwd=CWD, permission_mode="default", reason="r",
                              asked_at="2026-11-27T10:00:00.000+00:00")  # fmt: skip
    gate = ApprovalGate(ApprovalPolicy(rules=["Read(.env)"]), (pending, ApprovalDecision.allow()))
    options = gate.options(ClaudeAgentOptions(allowed_tools=["Read(./.env)", "Read(docs/*)", "Bash"]))
    assert options.allowed_tools == ["Read(docs/*)", "Bash"]  # ./.env resolved against the pending call's cwd


# ----------------------------------------------------------------------------- attacks


@pytest.mark.parametrize(
    "line",
    [
        "echo " + "a" * (1024 * 1024) + "; rm x",  # 1 MB
        "$(" * 10_000 + "rm x" + ")" * 10_000,  # 10 000 nested substitutions
        "`" * 10_001,
        "( " * 10_000 + "rm x" + " )" * 10_000,
        "bash -c " + "'bash -c " * 60 + "ls",
        "eval " * 5000 + "ls",
        "echo '" + "\\" * 100_000,
        "ls\x00; rm x",
        "r\ud800m x",
        "echo \udcff",
        "x" * (MAX_CHARS + 1),
        "find . -exec " * 5000 + "rm x",
        "env " + "-u X " * 20_000 + "rm x",
        "parallel " + "a " * 100_000,
    ],
)  # fmt: skip
def test_hostile_lines_ask_and_never_raise(line: str) -> None:
    assert asks("Bash(rm:*)", "Bash", {"command": line})


@pytest.mark.parametrize("tool_name,tool_input", [("Bash", {"command": 5}), ("Bash", {"command": None}), ("Bash", {}),
                                                  ("Bash", None), ("Bash", []), (5, {"command": "rm x"}),
                                                  ("Bash", {"command": b"rm x"})])  # fmt: skip
def test_odd_inputs_never_raise(tool_name: Any, tool_input: Any) -> None:
    reason = ApprovalPolicy(rules=["Bash(rm:*)", "Read(~/.ssh/*)"]).reason_for(tool_name, tool_input)
    assert reason is None or isinstance(reason, str)
    if tool_name == "Bash":
        assert reason is not None


def test_the_scanner_reports_what_it_could_not_follow() -> None:
    assert scan("echo $(" * 100 + ")" * 100).unsure is not None
    assert "NUL" in (scan("ls\x00").unsure or "")
    assert scan(5).unsure is not None  # type: ignore[arg-type]
    assert commands_run("bash").unsure is not None  # a shell reading stdin
    assert commands_run("bash script.sh").unsure is None  # a script is a program like any other
    assert commands_run('sh -c "$CMD"').unsure is not None
    assert commands_run("source venv/bin/activate").unsure is None


@pytest.mark.parametrize("line", [
    'flock --command "rm x" lk', 'flock --command="rm x" lk', 'flock lk --command "rm x"',
    "fc -s rm", "fc", "fc -e vi 5", "pnpm dlx rm x", "yarn exec rm x", "bunx rm x", "uv --quiet run -- rm x",
])  # fmt: skip
def test_forms_found_by_the_red_team_ask(line: str) -> None:
    """Long command-string options (util-linux flock has ``--command``), ``fc`` (runs a
    command from the history or an editor), run subcommands of tool runners."""
    assert ApprovalPolicy(rules=["Bash(rm:*)"]).reason_for("Bash", {"command": line}) is not None


@pytest.mark.parametrize("line", ["fc -l", "uv pip install x", "npm run build", "env --chdir=/ ls", "bash script.sh"])
def test_their_everyday_neighbours_do_not(line: str) -> None:
    """``bash script.sh`` runs a file the line does not show, as ``python x.py`` does: beyond
    any Bash rule (docs/tutorial/approvals.rst), so it does not ask."""
    assert ApprovalPolicy(rules=["Bash(rm:*)"]).reason_for("Bash", {"command": line}) is None


@pytest.mark.parametrize("tool,call", [
    ("Grep", {"pattern": "KEY", "path": "innocent"}), ("Grep", {"pattern": "KEY", "path": "./innocent/"}),
    ("Read", {"file_path": "innocent/id_rsa"}), ("LS", {"path": "innocent"}), ("Glob", {"pattern": "*", "path": "innocent"}),
    ("Read", {"file_path": "~/door/id_rsa"}),
])  # fmt: skip
def test_a_relative_or_home_path_through_a_symlink_asks_too(tmp_path: Path, tool: str, call: Dict[str, Any]) -> None:
    """Red team, CLI 2.1.333: ``Grep`` with ``path: "innocent"`` (a link in the project to
    ``~/.ssh``) reached the model with the private key; only absolute paths were resolved."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("key")
    (home / "door").symlink_to(home / ".ssh")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "innocent").symlink_to(home / ".ssh")
    assert asks("Read(~/.ssh/**)", tool, call, cwd=str(tmp_path / "app"), home=str(home))
    assert not asks("Read(~/.ssh/**)", tool, {**call, **{k: "src" for k in call if k != "pattern"}},
                    cwd=str(tmp_path / "app"), home=str(home))  # fmt: skip


@pytest.mark.parametrize("tool,call", [
    ("Read", {"file_path": "/Users/me/.SSH/id_rsa"}), ("Read", {"file_path": "/users/ME/.ssh/ID_RSA"}),
    ("Grep", {"pattern": "k", "path": "/Users/me/.Ssh"}), ("Grep", {"pattern": "k", "path": "/USERS/me"}),
])  # fmt: skip
def test_letter_case_cannot_walk_around_a_path_rule(tool: str, call: Dict[str, Any]) -> None:
    """A case-insensitive disk (macOS, Windows) opens ``~/.SSH/id_rsa`` as ``~/.ssh/id_rsa``."""
    assert asks("Read(~/.ssh/*)", tool, call, cwd="/Users/me/app", home="/Users/me")


@pytest.mark.parametrize("rule,line", [("Bash(rm:*)", "RM victim.txt"), ("Bash(rm:*)", "/BIN/Rm x"),
                                       ("Bash(git push:*)", "GIT push"), ("Bash(git commit *)", "Git commit -m x"),
                                       ("Bash(rm:*)", 'ENV -S "rm x"'), ("Bash(rm:*)", "BASH -c 'rm x'"),
                                       ("Bash(rm:*)", "echo x | XARGS rm"), ("Bash(rm:*)", "Sudo -u a rm x")])
def test_letter_case_cannot_walk_around_a_bash_rule(rule: str, line: str) -> None:
    """On a case-insensitive disk (macOS, Windows) bash finds ``/bin/rm`` for ``RM``."""
    assert ApprovalPolicy(rules=[rule]).reason_for("Bash", {"command": line}) is not None


def test_a_home_rule_covers_the_accounts_home_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A CLI given ``HOME=""`` keeps ``~`` at the account's home (2.1.197 and 2.1.333), which
    this process's ``HOME`` may not be."""
    import pwd

    monkeypatch.setenv("HOME", str(tmp_path))
    account = pwd.getpwuid(os.getuid()).pw_dir
    assert asks("Read(~/.ssh/*)", "Read", {"file_path": f"{account}/.ssh/id_rsa"}, cwd="/srv/app", home="")
