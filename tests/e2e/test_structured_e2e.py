"""Typed structured output end to end: the real CLI (``CLAUDE_SYNC_TEST_CLI``: 2.1.197 or the
newest) against the fake API, which answers by calling the CLI's ``StructuredOutput`` tool.

What the CLI does, checked here on both versions: it sends the schema as the
``StructuredOutput`` tool's ``input_schema``; a call that fits ends the turn at once (one API
call); a call that does not gets an error ``tool_result`` and another API call; after
``MAX_STRUCTURED_OUTPUT_RETRIES`` failed calls the result is
``error_max_structured_output_retries``, without the value.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest
from helpers import require_package, wait_until
from typing_extensions import NotRequired, TypedDict

from claude_sync import (
    AgentPool,
    ClaudeSDKClient,
    ResultMessage,
    RunResult,
    StructuredOutputError,
    json_schema_of,
    query,
    run,
)
from claude_sync.testing.fake_api import ApiRequest, FakeAnthropicAPI, text, tool_use

from .harness import cli_is_at_least, hermetic_env

pytestmark = pytest.mark.e2e

pydantic = require_package("pydantic")  # the test-integrations extra has it

NO_RETRIES = {"CLAUDE_CODE_MAX_RETRIES": "0"}
TOOL = "StructuredOutput"


class Currency(enum.Enum):
    EUR = "EUR"
    USD = "USD"


@dataclasses.dataclass
class Line:
    """One line of an invoice."""

    sku: str
    """Stock keeping unit."""
    quantity: int
    unit_price: decimal.Decimal


@dataclasses.dataclass
class Invoice:
    number: str
    issued: datetime.date
    currency: Currency
    lines: List[Line]
    paid_at: Optional[datetime.datetime] = None


INVOICE = {
    "number": "F-7",
    "issued": "2024-05-17",
    "currency": "EUR",
    "lines": [{"sku": "pen", "quantity": 3, "unit_price": "1.20"}],
}
EXPECTED = Invoice(
    "F-7", datetime.date(2024, 5, 17), Currency.EUR, [Line("pen", 3, decimal.Decimal("1.20"))]
)


class Movie(TypedDict):
    title: str
    released: datetime.date
    rating: NotRequired[float]


class Contact(pydantic.BaseModel):
    """Who wrote in."""

    name: str = pydantic.Field(description="Full name")
    email: str
    span: Tuple[int, int]


@dataclasses.dataclass
class Slot:
    day: datetime.date
    pair: Tuple[int, str]


def structured_tool(request: ApiRequest) -> Dict[str, Any]:
    (tool,) = [t for t in request.tools if t.get("name") == TOOL]
    return tool


def schema_errors(request: ApiRequest) -> List[str]:
    return [str(r.get("content")) for r in request.tool_results if r.get("is_error")]


# ----------------------------------------------------------------------------- success


def test_a_nested_dataclass_with_run(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(tool_use(TOOL, INVOICE))
    result = run("Read the invoice", options=e2e_options(env=NO_RETRIES), output_format=Invoice, timeout=120)
    assert isinstance(result, RunResult)
    assert result.output == EXPECTED
    assert result.output.lines[0].unit_price * result.output.lines[0].quantity == decimal.Decimal("3.60")
    assert result.result.parsed_output is result.output
    assert result.structured_output == INVOICE and result.output_error is None
    (turn,) = fake_api.turn_requests()  # a fitting call ends the turn: no second API call
    assert structured_tool(turn)["input_schema"] == json.loads(json.dumps(json_schema_of(Invoice)))
    assert "output=Invoice(" in repr(result)
    assert "Invoice" in result._repr_html_() and "F-7" in result._repr_html_()
    fake_api.assert_no_surprises()


def test_a_typeddict_with_query(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(tool_use(TOOL, {"title": "Up", "released": "2009-05-29"}))
    with query("Name a film", options=e2e_options(env=NO_RETRIES, output_format=Movie)) as stream:
        messages = list(stream)
    (result,) = [m for m in messages if isinstance(m, ResultMessage)]
    assert result.parsed_output == {"title": "Up", "released": datetime.date(2009, 5, 29)}
    assert result.structured_output == {"title": "Up", "released": "2009-05-29"}
    fake_api.assert_no_surprises()


def test_a_pydantic_model_with_the_client(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(tool_use(TOOL, {"name": "Sarah Chen", "email": "sarah@company.com", "span": [1, 2]}))
    with ClaudeSDKClient(e2e_options(env=NO_RETRIES, output_format=Contact)) as client:
        client.query("Who wrote?")
        *_, result = list(client.receive_response())
    assert isinstance(result, ResultMessage)
    assert result.parsed_output == Contact(name="Sarah Chen", email="sarah@company.com", span=(1, 2))
    tool = structured_tool(fake_api.turn_requests()[0])
    assert tool["input_schema"]["properties"]["name"]["description"] == "Full name"
    assert "prefixItems" not in json.dumps(tool["input_schema"])
    fake_api.assert_no_surprises()


def test_the_pool_runs_typed(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(tool_use(TOOL, INVOICE), tool_use(TOOL, dict(INVOICE, number="F-8")))
    options = e2e_options(env=NO_RETRIES, output_format=Invoice)
    with AgentPool(options, max_workers=1) as pool:
        first = pool.submit("one").result(120)
        (second,) = list(pool.map(["two"], timeout=120))
        stats = pool.stats()
    assert first.output == EXPECTED and second.output.number == "F-8"
    assert stats["started"] == 1 and stats["reused"] >= 1  # the typed CLI was reset and reused
    fake_api.assert_no_surprises()


def test_a_reused_cli_counts_failed_calls_afresh(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    """Isolation: with two calls allowed, each run makes one bad call and one good one. Had
    the count survived ``/clear``, the second run would have ended after its first bad call."""
    fake_api.add(*[tool_use(TOOL, value) for value in ({"a": 1}, INVOICE, {"b": 2}, dict(INVOICE, number="F-9"))])
    options = e2e_options(env=dict(NO_RETRIES, MAX_STRUCTURED_OUTPUT_RETRIES="2"), output_format=Invoice)
    with AgentPool(options, max_workers=1) as pool:
        first = pool.submit("one").result(120)
        second = pool.submit("two").result(120)
        wait_until(lambda: pool.stats()["parked"] == 1, 60, "the CLI reset and parked after the second run")
        stats = pool.stats()
    assert (first.output.number, second.output.number) == ("F-7", "F-9")
    assert stats["started"] == 1 and stats["reused"] == 2  # /clear after each run
    assert [len(schema_errors(r)) for r in fake_api.turn_requests()] == [0, 1, 0, 1]
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- retries


def test_an_invalid_first_answer_is_retried_by_the_cli(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    bad = dict(INVOICE, lines=[{"sku": "pen", "quantity": "three", "unit_price": "1.20"}])
    fake_api.add(tool_use(TOOL, bad), tool_use(TOOL, INVOICE))
    result = run("Read the invoice", options=e2e_options(env=NO_RETRIES), output_format=Invoice, timeout=120)
    assert result.output == EXPECTED
    first, second = fake_api.turn_requests()
    (complaint,) = schema_errors(second)
    assert complaint.startswith("Output does not match required schema: /lines/0/quantity: must be integer")
    fake_api.assert_no_surprises()


def test_exhausted_retries_raise_with_the_last_value(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    bad = [dict(INVOICE, currency=name) for name in ("euro", "dollar")]
    fake_api.add(*[tool_use(TOOL, value) for value in bad])
    options = e2e_options(env=dict(NO_RETRIES, MAX_STRUCTURED_OUTPUT_RETRIES="2"))
    with pytest.raises(StructuredOutputError) as caught:
        run("Read the invoice", options=options, output_format=Invoice, timeout=120)
    error = caught.value
    assert error.subtype == "error_max_structured_output_retries"
    assert error.raw_output == bad[-1]
    assert error.error_path == "$.currency"
    assert (error.problem or "").startswith("must be equal to one of the allowed values")  # 2.1.331 lists them
    assert error.schema == json_schema_of(Invoice) and error.output_type is not None
    assert error.output_type.endswith(".Invoice")
    assert error.errors and error.errors[0].startswith("Failed to provide valid structured output after 2 attempts")
    assert len(fake_api.turn_requests()) == 2
    fake_api.assert_no_surprises()


def test_exhausted_retries_as_data(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(tool_use(TOOL, {"nope": 1}))
    options = e2e_options(env=dict(NO_RETRIES, MAX_STRUCTURED_OUTPUT_RETRIES="1"), raise_on_error_result=False)
    result = run("Read the invoice", options=options, output_format=Invoice, timeout=120)
    assert result.is_error and result.output is None
    assert result.output_error is not None and result.output_error.raw_output == {"nope": 1}
    fake_api.assert_no_surprises()


def test_query_raises_after_the_result(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(tool_use(TOOL, {"title": 3, "released": "2009-05-29"}))
    options = e2e_options(env=dict(NO_RETRIES, MAX_STRUCTURED_OUTPUT_RETRIES="1"), output_format=Movie)
    seen: List[Any] = []
    with pytest.raises(StructuredOutputError) as caught:
        for message in query("Name a film", options=options):
            seen.append(message)
    assert isinstance(seen[-1], ResultMessage) and seen[-1].parsed_output is None
    assert caught.value.raw_output == {"title": 3, "released": "2009-05-29"}
    assert caught.value.error_path == "$.title"
    assert caught.value.exit_code in (None, 1)
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- the class refuses


def test_a_value_the_cli_accepts_but_the_class_refuses(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    value = {"day": "2024-02-30", "pair": [1, "one"]}  # fits the pattern; no such day
    fake_api.add(tool_use(TOOL, value))
    with pytest.raises(StructuredOutputError) as caught:
        run("Pick a slot", options=e2e_options(env=NO_RETRIES), output_format=Slot, timeout=120)
    error = caught.value
    assert error.subtype == "success"  # the CLI was content
    assert error.raw_output == value and error.error_path == "$.day"
    assert "2024-02-30" in (error.problem or "")
    assert len(fake_api.turn_requests()) == 1
    fake_api.assert_no_surprises()


def test_a_tuple_position_only_the_class_can_check(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    value = {"day": "2024-02-28", "pair": ["one", 1]}  # each item is one of the allowed kinds
    fake_api.add(tool_use(TOOL, value))
    with pytest.raises(StructuredOutputError) as caught:
        run("Pick a slot", options=e2e_options(env=NO_RETRIES), output_format=Slot, timeout=120)
    assert caught.value.error_path == "$.pair[0]" and caught.value.raw_output == value
    fake_api.assert_no_surprises()


def test_a_model_that_never_calls_the_tool(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    fake_api.add(text("Here is the invoice in prose."), text("Still prose."))
    with pytest.raises(StructuredOutputError) as caught:
        run("Read the invoice", options=e2e_options(env=NO_RETRIES), output_format=Invoice, timeout=120)
    assert caught.value.raw_output is None
    assert caught.value.problem == "the model never called the StructuredOutput tool"
    # the CLI's one reminder, then it gives up with a success result
    assert [r for r in fake_api.turn_requests() if "[structured-output-enforce]" in r.last_user_text]
    fake_api.assert_no_surprises()


@pytest.mark.parametrize(
    "extra",
    [{"prefixItems": [{"type": "integer"}]}, {"x-note": "ours"}, {"format": "date"}],
    ids=["prefixItems", "x-keyword", "format"],
)
def test_a_schema_dict_the_cli_cannot_compile(
    extra: Dict[str, Any], fake_api: FakeAnthropicAPI, e2e_options: Any, real_cli_path: str
) -> None:
    """The CLI compiles the schema with Ajv (draft-07, strict) and, when that fails, drops its
    StructuredOutput tool without a word: the model calling it gets "No such tool available".
    2.1.331 ignores ``format``; 2.1.197 refuses it."""
    schema = {"type": "object", "properties": {"a": dict({"type": "string"}, **extra)}, "required": ["a"]}
    fake_api.add(tool_use(TOOL, {"a": "2024-01-01"}), text("No such tool, then."))
    options = e2e_options(env=NO_RETRIES, output_format={"type": "json_schema", "schema": schema})
    accepted = "format" in extra and cli_is_at_least(real_cli_path, "2.1.330")
    if accepted:
        assert run("Fill it", options=options, timeout=120).output == {"a": "2024-01-01"}
        return
    with pytest.raises(StructuredOutputError) as caught:
        run("Fill it", options=options, timeout=120)
    assert (caught.value.problem or "").startswith("the CLI did not offer the StructuredOutput tool")
    first, second = fake_api.turn_requests()[:2]
    assert TOOL not in first.tool_names
    assert "No such tool available: StructuredOutput" in " ".join(schema_errors(second))


def test_a_class_without_a_json_form_fails_before_anything_starts(e2e_options: Any, fake_api: FakeAnthropicAPI) -> None:
    @dataclasses.dataclass
    class Bad:
        when: datetime.timedelta

    with pytest.raises(TypeError, match=r"ClaudeAgentOptions.output_format: .*Bad.when: timedelta"):
        run("x", options=e2e_options(), output_format=Bad)
    assert fake_api.turn_requests() == []


# ----------------------------------------------------------------------------- other processes

MAIN_SCRIPT = '''
import concurrent.futures, dataclasses, multiprocessing, pickle, sys
from typing import List

from claude_sync import ClaudeAgentOptions, run


@dataclasses.dataclass
class Verdict:  # defined in __main__, as in a script or a notebook cell
    answer: str
    votes: List[int]


def main() -> None:
    cli, base_url, home, which = sys.argv[1:5]
    from claude_sync.testing.offline import hermetic_env

    options = ClaudeAgentOptions(cli_path=cli, env=hermetic_env(home, base_url, CLAUDE_CODE_MAX_RETRIES=0))
    if which == "fork":
        context = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as executor:
            result = executor.submit(run, "vote", options=options, output_format=Verdict, timeout=120).result()
    else:
        import distributed
        from claude_sync.integrations.dask import install, submit_runs

        with distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
        ) as cluster, distributed.Client(cluster) as client:
            install(client, options=options, max_workers=1)
            (result,) = client.gather(submit_runs(client, ["vote"], output_format=Verdict, timeout=120))
    assert type(result.output) is Verdict, type(result.output)
    print(result.output)


if __name__ == "__main__":
    main()
'''


@pytest.mark.parametrize("which", ["fork", "dask"])
def test_a_class_defined_in_main_crosses_processes(
    which: str, real_cli_path: str, fake_api: FakeAnthropicAPI, tmp_path: Path
) -> None:
    if which == "dask":
        require_package("distributed", import_it=False)
    fake_api.add(tool_use(TOOL, {"answer": "yes", "votes": [3, 1]}))
    script = tmp_path / "verdict.py"
    script.write_text(MAIN_SCRIPT)
    env = hermetic_env(tmp_path, fake_api.base_url)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    done = subprocess.run(
        [sys.executable, str(script), real_cli_path, fake_api.base_url, str(tmp_path), which],
        env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "Verdict(answer='yes', votes=[3, 1])"
    fake_api.assert_no_surprises()


# ----------------------------------------------------------------------------- notebooks


@pytest.mark.allow_leaks  # jupyter_client keeps a process-wide zmq context (see test_notebook_e2e)
def test_a_class_from_a_notebook_cell_and_its_display(fake_api: FakeAnthropicAPI, e2e_options: Any) -> None:
    nbformat = require_package("nbformat")
    nbclient = require_package("nbclient")
    require_package("ipykernel", import_it=False)  # the kernel nbclient starts
    value = {"title": "Up", "minutes": 96}
    fake_api.add(tool_use(TOOL, value), tool_use(TOOL, dict(value, title="Coco")))
    options = e2e_options(env=NO_RETRIES)
    repo = Path(__file__).resolve().parents[2]
    cells = [
        f"import sys\nsys.path.insert(0, {str(repo)!r})\n"
        "from claude_sync import ClaudeAgentOptions, json_schema_of, query, run, show\n"
        f"options = ClaudeAgentOptions(cli_path={str(options.cli_path)!r}, env={dict(options.env)!r}, cwd={str(options.cwd)!r})",
        "import dataclasses\n\n@dataclasses.dataclass\nclass Film:\n    title: str\n    minutes: int\n",
        "result = run('Name a film', options=options, output_format=Film)\nresult",
        "import dataclasses as dc\ntranscript = show(query('Another', options=dc.replace(options, output_format=Film)))\n"
        "print(type(transcript[-1].parsed_output).__name__, transcript[-1].parsed_output.title)",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    client = nbclient.NotebookClient(notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(repo)}})
    client.execute()
    assert client.km is None or not client.km.is_alive()  # the kernel (and the CLIs it ran) ended
    outputs = [[dict(o) for o in cell.get("outputs", [])] for cell in notebook.cells]
    html = [o["data"]["text/html"] for o in outputs[2] if "text/html" in o.get("data", {})]
    assert html and "<code>Film</code>" in html[0] and "Film(title=&#x27;Up&#x27;, minutes=96)" in html[0], outputs[2]
    live = [o["data"]["text/markdown"] for o in outputs[3] if "text/markdown" in o.get("data", {})]
    assert live and "Film(title=&#x27;Coco&#x27;, minutes=96)" in live[-1], outputs[3]
    assert "Film Coco" in "".join(o.get("text", "") for o in outputs[3])
    fake_api.assert_no_surprises()
