"""The stats page's charts: inline SVG drawn on the server, scaled to the largest value."""

from __future__ import annotations

import re

from cairn.web.insight import bars, columns


def test_bars_scale_to_the_largest_value() -> None:
    svg = str(bars([("recall", 2), ("brief", 1)]))
    # plot width = 360 - 110 (labels) - 70 (values) = 180 for the largest
    assert re.findall(r'<rect x="110" y="\d+" width="([\d.]+)"', svg) == ["180.0", "90.0"]
    assert ">recall</text>" in svg and ">2</text>" in svg


def test_bars_escape_their_labels_and_draw_nothing_for_no_rows() -> None:
    assert "<script>" not in str(bars([("<script>", 1)]))
    assert str(bars([])) == ""


def test_columns_are_as_tall_as_their_share() -> None:
    svg = str(columns([("2026-W01", 4), ("2026-W02", 2)]))
    heights = re.findall(r'height="([\d.]+)"><title>', svg)
    assert heights == ["86.0", "43.0"]
