"""``max_retries`` against the real CLI: N retries are N + 1 requests to the API for a turn
whose requests keep failing, then an error result (both supported CLIs honour
``CLAUDE_CODE_MAX_RETRIES``; see ``environment.MAX_RETRIES_ENV``)."""

from __future__ import annotations

from typing import Any

import pytest

from claude_sync import ResultMessage, query
from claude_sync.testing import FakeAnthropicAPI, error, text

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("retries", [0, 2])
def test_max_retries_bounds_the_requests_of_a_failing_turn(retries: int, fake_api: FakeAnthropicAPI,
                                                           e2e_options: Any) -> None:
    fake_api.add(*[error(500, "api_error", "overloaded", retry_after=0) for _ in range(4)], text("too late"))
    options = e2e_options(env={"CLAUDE_CODE_MAX_RETRIES": None}, max_retries=retries, raise_on_error_result=False)
    messages = list(query("hi", options=options))
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.is_error and result.api_error_status == 500
    assert len(fake_api.turn_requests()) == retries + 1
