"""Variants on the page, in Chromium: the lobby offers every bundled map; a person creates a
game on a three-power variant (a map with no display positions, drawn from its adjacencies),
sees it drawn, orders by clicking on the computed drawing, and plays it to the year limit."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from diplomat.engine.map import bundled_maps, load_map

from .conftest import start_server, stop_server
from .test_browser import (
    Watch,
    _click_loc,
    _order_phase,
    _phase,
    _ready_and_wait,
    _shot,
    _wait_view,
)

MAP = "hundred3"  # three powers, 41 provinces, split coasts, first year 1425


def test_a_game_on_a_three_power_variant(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    gmap = load_map(MAP)
    first = f"S{gmap.start_year}M"
    server = start_server(tmp_path / "variant.sqlite")
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        page = context.new_page()
        watch = Watch(page)
        page.goto(server.url)
        page.wait_for_selector(f"#f-map option[value={MAP}]", state="attached")
        offered = page.eval_on_selector_all("#f-map option", "os => os.map(o => o.value)")
        assert sorted(offered) == sorted(bundled_maps())
        # The standard map first: seven powers, six opponents.
        assert page.eval_on_selector_all("#f-opponents select", "s => s.length") == 6
        page.select_option("#f-map", MAP)
        _wait_view(page, "document.querySelectorAll('#f-opponents select').length === 2")
        powers = page.eval_on_selector_all("#f-power option", "os => os.map(o => o.value)")
        assert sorted(powers) == sorted(["random", *gmap.powers])
        assert page.input_value("input[name=max_year]") == str(gmap.start_year + 9)
        assert gmap.designer in page.inner_text("#f-about")
        _shot(page, artifacts / "web-variant-lobby.png")
        page.select_option("#f-power", "ENG")
        for key in ("move_time", "retreat_time", "build_time"):
            page.fill(f"input[name={key}]", "900")  # far off: Ready moves the game on
        page.fill("input[name=max_year]", str(gmap.start_year))
        page.click("#create-button")
        page.wait_for_url("**/game/*")
        _wait_view(page, "document.body.dataset.stage === 'playing'")
        assert page.inner_text("#title").endswith("you are England")
        assert page.eval_on_selector("#map svg", "s => s.dataset.map") == MAP
        assert _phase(page) == first
        # Every province is drawn and named; the split coasts are their own targets.
        assert page.eval_on_selector_all("#map path.prov", "ps => ps.length") == len(gmap.provinces)
        assert page.eval_on_selector_all(
            "#map text.label.land, #map text.label.sea", "l => l.length"
        ) == len(gmap.provinces)
        coasts = sum(len(info.coasts) for info in gmap.provinces.values())
        assert page.eval_on_selector_all("#map .coast-target", "c => c.length") == coasts
        _shot(page, artifacts / "web-variant-start.png")

        # An order by clicking: England's army in Normandy to a province the page offers.
        _click_loc(page, "NMD")
        _wait_view(page, "document.querySelector('#map .unit.selected') !== null")
        targets = page.eval_on_selector_all(
            "#map .outline.target", "els => els.map(e => e.dataset.prov)"
        )
        assert targets and set(targets) <= set(gmap.reach("A", "NMD"))
        _click_loc(page, targets[0])
        _wait_view(page, "document.querySelector('#map #pending-NMD.move') !== null")
        given = page.eval_on_selector_all(
            "#orders li.given .order", "els => els.map(e => e.textContent)"
        )
        assert given == [f"A NMD - {targets[0]}"]

        # Then the whole (one-year) game, to the year limit.
        phases = [first]
        deadline = time.monotonic() + 600  # an outer limit, never reached
        while page.evaluate("document.body.dataset.stage") != "finished":
            assert time.monotonic() < deadline, f"stuck in {_phase(page)}"
            phase = _phase(page)
            if phase not in phases:
                phases.append(phase)
            # Ready gives every unit without an order its default (hold, disband, waive), so
            # the rest of the game needs few clicks on the computed drawing; but a person
            # chooses their own removals (the page hides Ready until they have), so when
            # England has lost a centre, the units to remove are clicked first.
            if phase.endswith("A") and page.is_hidden("#ready"):
                _order_phase(page, {})
            _ready_and_wait(page, phase)
        assert f"F{gmap.start_year}M" in phases
        page.wait_for_selector("#end table tr[data-power]")
        rows = page.eval_on_selector_all("#summary tr[data-power]", "rs => rs.length")
        assert rows == len(gmap.powers)
        _shot(page, artifacts / "web-variant-end.png")
        assert not watch.errors, watch.errors
        assert not watch.foreign, watch.foreign
        context.close()
    finally:
        stop_server(server)
