"""The fidelity tables as ``docs/methodology.md`` shows them.

``python -m tests.fidelity.table`` prints both; the page must contain them as
printed (``test_fidelity`` checks).
"""

from __future__ import annotations

from collections.abc import Sequence

from tests.fidelity.published import Published, estimate, within


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"


def _printed_ratio(row: Published) -> float:
    """Estimated / published as the table prints them, so a reader gets the same ratio.

    The unrounded ratio (``within``) decides the band; this one only shows it:
    3.04 published and 2.79 estimated print 0.92 (2.79 / 3.04), not 0.91 (the unrounded
    2.785 / 3.045).
    """

    def printed(value: float) -> float:
        return float(_number(value).replace(",", ""))

    return printed(estimate(row)) / printed(row.published)


def markdown_table(rows: Sequence[Published]) -> str:
    """One line per figure: what, published, estimated, ratio, and why when outside ±15 %."""
    lines = [
        "| figure | published | estimated | ratio | source | outside ±15 % because |",
        "|---|---:|---:|---:|---|---|",
    ]
    for r in rows:
        why = "" if within(r) else r.why
        lines.append(
            f"| {r.figure.value}: {r.name} | {_number(r.published)} | {_number(estimate(r))}"
            f" | {_printed_ratio(r):.2f} | {r.source} | {why} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    from tests.fidelity.figures import FIGURES
    from tests.fidelity.held_out import HELD_OUT

    print(markdown_table(FIGURES))
    print(markdown_table(HELD_OUT))
