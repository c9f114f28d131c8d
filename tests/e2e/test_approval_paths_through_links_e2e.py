"""A path rule holds when the model names the area through a link in the project (real CLI).

``Read(~/.ssh/**)`` with ``allowed_tools`` allowing the search: the project holds a symlink
``innocent`` → ``~/.ssh``. A ``Grep`` with the relative ``path: "innocent"`` reached the model
with the private key on 2.1.333 (red team, issue 36): only absolute paths were resolved. It
must defer, and the key must not reach the fake API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict

import pytest

from claude_sync import ApprovalPolicy, PendingApproval, run_with_approvals
from claude_sync.testing.fake_api import FakeAnthropicAPI, text, tool_use

pytestmark = pytest.mark.e2e

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- keymaterial0123456789"


@pytest.mark.parametrize("tool,call", [
    ("Grep", {"pattern": "PRIVATE", "path": "innocent", "output_mode": "content"}),
    ("Read", {"file_path": "innocent/id_ed25519"}),
])  # fmt: skip
def test_a_search_through_a_link_to_the_protected_area_defers(
    tool: str, call: Dict[str, Any], e2e_options: Callable[..., Any], fake_api: FakeAnthropicAPI,
    e2e_workdir: Path, tmp_path: Path,
) -> None:  # fmt: skip
    ssh = tmp_path / "home" / ".ssh"
    ssh.mkdir(parents=True, exist_ok=True)
    (ssh / "id_ed25519").write_text(KEY)
    (e2e_workdir / "innocent").symlink_to(ssh)
    options = e2e_options(allowed_tools=["Read", "Grep"])
    fake_api.add(tool_use(tool, call), text("done"))
    outcome = run_with_approvals("look around", policy=ApprovalPolicy(rules=["Read(~/.ssh/**)"]), options=options, timeout=120)
    assert isinstance(outcome, PendingApproval), outcome
    assert outcome.tool_name == tool
    assert "keymaterial" not in str(fake_api.turn_requests())
