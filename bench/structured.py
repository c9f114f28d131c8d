"""What typed structured output costs (not a test: prints figures).

    python bench/structured.py                # 7 reps
    python bench/structured.py --reps 3 --number 200000

A 20-field dataclass with nested dataclasses, lists, an enum, dates, decimals and optionals
(``Order`` below). Measured, each in its own fresh interpreter so the first call is really
the first: ``json_schema_of`` the first time (type hints, field docs from the source, the CLI
dialect, freezing) and every later time (the cached schema: the figure the project holds to
< 5 µs), ``ClaudeAgentOptions(output_format=Order)`` once the schema is cached, and decoding
a fitting value (``parse_output``, dataclasses-json building the instances) after a first
decode paid the dataclasses-json import. Median and min-max over ``--reps``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parents[1]

WORKER = r'''
import dataclasses, datetime, decimal, enum, json, sys, time, timeit
from typing import Dict, List, Optional

sys.path.insert(0, sys.argv[1])
number = int(sys.argv[2])
import claude_sync
from claude_sync import ClaudeAgentOptions, json_schema_of, parse_output


class Status(enum.Enum):
    OPEN = "open"
    PAID = "paid"


@dataclasses.dataclass
class Address:
    street: str
    city: str
    postcode: str
    country: str = "FR"


@dataclasses.dataclass
class Line:
    """One line."""

    sku: str
    """Stock keeping unit."""
    quantity: int
    unit_price: decimal.Decimal
    discount: Optional[float] = None


@dataclasses.dataclass
class Order:
    number: str
    status: Status
    created: datetime.datetime
    due: datetime.date
    customer: str
    email: str
    billing: Address
    shipping: Optional[Address]
    lines: List[Line]
    tags: List[str]
    notes: Optional[str]
    total: decimal.Decimal
    currency: str
    paid: bool
    weight_kg: float
    parcels: int
    metadata: Dict[str, str]
    priority: int = 0
    gift: bool = False
    reference: Optional[str] = None


VALUE = {
    "number": "O-1", "status": "open", "created": "2024-05-17T10:00:00Z", "due": "2024-06-01",
    "customer": "Ada", "email": "ada@example.com",
    "billing": {"street": "1 rue X", "city": "Paris", "postcode": "75001"}, "shipping": None,
    "lines": [{"sku": f"s{i}", "quantity": i, "unit_price": "1.50"} for i in range(5)],
    "tags": ["a", "b"], "notes": None, "total": "12.00", "currency": "EUR", "paid": False,
    "weight_kg": 1.5, "parcels": 1, "metadata": {"k": "v"},
}

assert len(dataclasses.fields(Order)) == 20
started = time.perf_counter()
schema = json_schema_of(Order)
first = time.perf_counter() - started
again = timeit.timeit(lambda: json_schema_of(Order), number=number) / number
options = timeit.timeit(lambda: ClaudeAgentOptions(output_format=Order), number=max(1, number // 100)) / max(1, number // 100)
started = time.perf_counter()
parse_output(Order, VALUE)
first_decode = time.perf_counter() - started
decode = timeit.timeit(lambda: parse_output(Order, VALUE), number=max(1, number // 200)) / max(1, number // 200)
print(json.dumps({"first": first, "again": again, "options": options, "first_decode": first_decode,
                  "decode": decode, "schema_bytes": len(json.dumps(schema))}))
'''  # fmt: skip


def measure(reps: int, number: int) -> Dict[str, List[float]]:
    rows: Dict[str, List[float]] = {}
    for _ in range(reps):
        out = subprocess.run(
            [sys.executable, "-c", WORKER, str(ROOT), str(number)], capture_output=True, text=True, check=True
        )
        for key, value in json.loads(out.stdout).items():
            rows.setdefault(key, []).append(value)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--number", type=int, default=100_000, help="calls timed per rep for the cached schema")
    args = parser.parse_args()
    rows = measure(args.reps, args.number)
    labels = {
        "first": "json_schema_of(Order), first call",
        "again": "json_schema_of(Order), cached",
        "options": "ClaudeAgentOptions(output_format=Order)",
        "first_decode": "parse_output, first call (imports dataclasses-json)",
        "decode": "parse_output, later calls",
    }
    print(f"20-field nested dataclass; {args.reps} reps, median (min-max); schema "
          f"{int(rows['schema_bytes'][0]):,} bytes of JSON")  # fmt: skip
    for key, label in labels.items():
        values = [v * 1e6 for v in rows[key]]
        print(f"  {label:<55} {statistics.median(values):10.2f} µs  ({min(values):.2f}-{max(values):.2f})")


if __name__ == "__main__":
    main()
