"""The press fuzz on a map whose powers are not the standard seven (issue 29): ten players of a
Modern game (Britain, Egypt, Poland, Spain, Ukraine ... beside four standard names) send a
thousand seeded SNDs at once over DAIDE text lines: proposals, replies and facts nested a few
deep at every level up to 30 in a level-20 game, the same with one word broken (a standard
power that Modern lacks, a stray bracket, a number), and word soup. The server checks each
against Modern's own token table: it answers every one (YES, HUH with ERR, REJ), HUH to each
above the level, relays what is allowed as FRM, and keeps serving the game.

Before issue 29 the level check rendered press with the standard map's table whatever the
game's map, so a proposal naming Egypt ended the process. (The byte-level fuzz on the standard
map is ``test_reliability.test_fuzzed_input_never_hurts_the_server``.)
"""

from __future__ import annotations

import random
from typing import Any

import trio

from diplomat.engine.map import GameMap, load_map
from diplomat.engine.orders import Hold, Move
from diplomat.engine.state import initial_state
from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.levels import press_level
from diplomat.protocol.mdf import table_for_map
from diplomat.server.settings import GameSettings

from .daide_client import PATIENCE, MakeServer, WireClient

SEED = 20261128
PER_CLIENT = 100
LEVEL = 20
# Words that break a message on Modern: standard powers it lacks, syntax, junk.
BREAKERS = ["ENG", "FRA", "AUS", "(", ")", "ERR", "-5", "'x'", "XYZ", "PRP", "AND"]
REPLY = (messages.Huh, messages.Rej, messages.Prn, messages.Ccd, messages.Out)


class PressFuzz:
    """Seeded random press for one map."""

    def __init__(self, gmap: GameMap, rng: random.Random) -> None:
        self.gmap = gmap
        self.rng = rng
        self.powers = list(gmap.powers)
        self.provinces = sorted(gmap.provinces)
        self.units = list(initial_state(gmap).units.values())

    def some(self, items: list[str], most: int = 3) -> tuple[str, ...]:
        return tuple(self.rng.sample(items, self.rng.randint(1, min(most, len(items)))))

    def arrangement(self, depth: int) -> Any:
        r = self.rng
        kinds = ["pce", "aly", "drw", "slo", "dmz", "xdo", *(["and", "orr"] if depth else [])]
        kind = r.choice(kinds)
        if kind == "pce":
            return messages.Pce(self.some(self.powers))
        if kind == "aly":
            allies = self.some(self.powers)
            return messages.Aly(allies, self.some([p for p in self.powers if p not in allies]))
        if kind == "drw":
            return messages.Drw()
        if kind == "slo":
            return messages.Slo(r.choice(self.powers))
        if kind == "dmz":
            return messages.Dmz(self.some(self.powers), self.some(self.provinces))
        if kind == "xdo":
            unit = r.choice(self.units)
            order = Hold(unit) if r.random() < 0.5 else Move(unit, r.choice(self.provinces))
            return messages.Xdo(order)
        parts = tuple(self.arrangement(depth - 1) for _ in range(r.randint(2, 3)))
        return messages.And(parts) if kind == "and" else messages.Orr(parts)

    def press(self) -> Any:
        r = self.rng
        arr = self.arrangement(r.randint(0, 3))
        kind = r.choice(["prp", "yes", "rej", "bwx", "ccl", "fct", "not", "try"])
        if kind == "prp":
            return messages.Prp(arr)
        if kind in ("yes", "rej", "bwx", "ccl"):
            wrap = {
                "yes": messages.Yes,
                "rej": messages.Rej,
                "bwx": messages.Bwx,
                "ccl": messages.Ccl,
            }[kind]
            return wrap(messages.Prp(arr))
        if kind == "fct":
            return messages.Fct(arr)
        if kind == "not":
            return messages.Fct(messages.Not(arr))
        return messages.Try(tuple(r.sample(["PRP", "PCE", "ALY", "XDO", "AND", "DMZ"], 3)))

    def snd(self, sender: str) -> messages.Snd:
        to = self.some([p for p in self.powers if p != sender] + [sender], 4)
        return messages.Snd(to, self.press())


async def test_the_press_fuzz_on_a_map_with_its_own_powers(make_server: MakeServer) -> None:
    modern = load_map("modern")
    table = table_for_map(modern)
    codec = codec_for(table)
    assert not table.is_standard and "EGY" in modern.powers
    server = await make_server(GameSettings(map="modern", level=LEVEL, max_year=1995))
    port = server.address[1]
    clients = [await WireClient.connect(port, text=True, table=table) for _ in modern.powers]
    for i, c in enumerate(clients):
        await c.join(f"fuzzer{i}")
    powers = [
        (await c.expect(messages.Hlo)).power for c in clients
    ]  # the game starts when all are in
    for c in clients:
        await c.expect(messages.Now)  # the game has begun for everyone

    rng = random.Random(SEED)
    fuzz = PressFuzz(modern, rng)
    lines: list[list[str]] = []
    above: list[int] = []  # per client: how many well-formed SNDs are above the level
    for power in powers:
        mine, high = [], 0
        for _ in range(PER_CLIENT):
            snd = fuzz.snd(power)
            words = codec.text(snd).split()
            roll = rng.random()
            if roll < 0.6:
                high += press_level(snd, table) > LEVEL
            elif roll < 0.85:
                words[rng.randrange(2, len(words))] = rng.choice(BREAKERS)
            else:
                soup = [*BREAKERS, *modern.powers, *fuzz.provinces[:20], "PCE", "XDO", "HLD"]
                words = ["SND", "(", rng.choice(powers), ")", "("]
                words += [*rng.choices(soup, k=rng.randint(1, 12)), ")"]
            mine.append(" ".join(words))
        lines.append(mine)
        above.append(high)

    replies: list[list[Any]] = [[] for _ in clients]
    relayed: list[messages.Frm] = []

    async def fuzz_one(i: int) -> None:
        c = clients[i]
        await c.send_raw("".join(f"{line}\n" for line in lines[i]).encode())
        with trio.fail_after(PATIENCE):
            while len(replies[i]) < PER_CLIENT:
                ev = await c.event()
                if isinstance(ev, messages.Frm):
                    relayed.append(ev)
                elif (
                    isinstance(ev, messages.Yes) and isinstance(ev.inner, messages.Snd)
                ) or isinstance(ev, REPLY):
                    replies[i].append(ev)
                else:
                    assert not isinstance(ev, messages.Off | messages.Smr), (
                        ev
                    )  # the game must not end

    async with trio.open_nursery() as nursery:
        for i in range(len(clients)):
            nursery.start_soon(fuzz_one, i)

    for i, got in enumerate(replies):
        huhs = sum(isinstance(r, messages.Huh) for r in got)
        assert huhs >= above[i], (powers[i], huhs, above[i])
        assert any(isinstance(r, messages.Yes) for r in got), powers[i]
    # Press naming Modern's own powers went through, to the players named.
    assert any(f.sender in ("EGY", "BRT", "POL", "SPA", "UKR") for f in relayed)
    # The server still serves: the game's map for a newcomer, and every player's game goes on
    # (everyone holds: the phase is processed).
    newcomer = await WireClient.connect(port, text=True, table=table)
    await newcomer.send(messages.Map())
    assert await newcomer.expect(messages.Map) == messages.Map("modern")
    start = initial_state(modern)
    for c, power in zip(clients, powers, strict=True):
        await c.send(messages.Sub(tuple(Hold(u) for u in start.units_of(power))))
    now = await clients[0].expect(messages.Now)
    assert now.turn.name == "F1995M"
