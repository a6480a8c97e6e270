"""A person's press on the web page: composing from menus, and reading the conversations.

There is no free text: a person composes a proposal as AiMapper let one do, from what DAIDE
says at the game's press level: recipients, then arrangements (peace, an alliance against named
powers, a draw; at level 20 a demilitarised zone picked on the map and an order for someone to
give, ``XDO``, picked on the map with the same clicks as one's own orders; at level 30 several of
them at once, all (``AND``) or any one (``ORR``)). A received proposal is answered in one click
(yes ``YES``, no ``REJ``, not now ``BWX``), and one's own cancelled (``CCL``) while it waits. A
message is only offered if the server would relay it: the desk checks its level and its
recipients before it hands the ``SND`` to the session.

Reading: the press of the seat (everyone's once the game is over) from the store, by
conversation (one per power, one for messages with several others), each message in English
(``protocol.english``) with its DAIDE, proposals with their state and the agreements in force
(``protocol.pressbook``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from diplomat.engine.map import GameMap, province_of
from diplomat.engine.orders import Order, Waive
from diplomat.engine.state import GameState
from diplomat.protocol import messages
from diplomat.protocol.codec import Codec, codec_for
from diplomat.protocol.english import Names, arrangement, describe, handshake, join
from diplomat.protocol.levels import level_error
from diplomat.protocol.mdf import table_for_map
from diplomat.protocol.press_levels import FREE_TEXT
from diplomat.protocol.pressbook import (
    WAITING,
    Agreement,
    PressItem,
    Proposal,
    agreements,
    breaches,
    outcomes,
    proposals,
)
from diplomat.protocol.syntax import ParseError
from diplomat.web.builder import MenuItem, Offer, OrderBuilder
from diplomat.web.talk import unread_by_program

PRESS_LEVELS = (0, 10, 20, 30, FREE_TEXT)  # what the page offers (0: gunboat; 8000: free text)
GROUP = "group"  # the conversation of messages with several other powers
ANSWERS: dict[str, type] = {"yes": messages.Yes, "no": messages.Rej, "bwx": messages.Bwx}
# The arrangements a person may compose, by the level that allows them.
KINDS: dict[str, tuple[int, str]] = {
    "pce": (10, "Peace"),
    "aly": (10, "Alliance against…"),
    "drw": (10, "A draw"),
    "dmz": (20, "Demilitarised zone…"),
    "xdo": (20, "An order…"),
}


def stored_items(rows: Iterable[Any], codec: Codec) -> list[PressItem]:
    """The store's press rows (``server.store.PressRow``) as typed items; a row that does not
    parse (it never should: the server stored what it relayed) is left out."""
    out: list[PressItem] = []
    for r in rows:
        try:
            msg = codec.parse_text(f"FRM ( {r.sender} ) ( {' '.join(r.recipients)} ) ( {r.body} )")
        except ParseError:
            continue
        if isinstance(msg, messages.Frm):
            out.append(PressItem(r.seq, r.phase, r.sender, msg.recipients, msg.press))
    return out


@dataclass
class Draft:
    """The message being composed: its recipients and its parts, each part a kind and what
    it needs (``("aly", ("GER",))``, ``("dmz", ("BUR", "BEL"))``, ``("xdo", order)``)."""

    to: list[str] = field(default_factory=list)
    parts: list[tuple[str, Any]] = field(default_factory=list)
    mode: str | None = None  # picking: "aly" (the enemies), "dmz" (provinces), "xdo" (an order)
    picked: list[str] = field(default_factory=list)  # enemies or provinces being picked
    xdo: OrderBuilder | None = None


class PressDesk:
    """One seat's press; see the module's docstring."""

    def __init__(self, power: str, gmap: GameMap, level: int, pda: bool = False) -> None:
        self.power = power
        self.gmap = gmap
        self.level = level
        self.pda = pda
        self.table = table_for_map(gmap)
        self.codec = codec_for(self.table)
        self.names = Names.of_map(gmap)
        self.items: list[PressItem] = []
        self.sent: dict[int, float] = {}  # when each message was relayed (epoch seconds)
        self.draft = Draft()

    def new_phase(self) -> None:
        """A new phase: a zone or an order being picked on the old board is dropped (the
        recipients and the parts chosen stay)."""
        d = self.draft
        d.mode, d.picked, d.xdo = None, [], None

    # -- what may be sent --------------------------------------------------------------------

    def kinds(self) -> list[str]:
        return [k for k, (lvl, _) in KINDS.items() if lvl <= self.level]

    def can_add(self) -> bool:
        """Level 30 combines parts; below it a message has one."""
        return self.level >= 30 or not self.draft.parts

    def arrangement_of(self, part: tuple[str, Any]) -> Any:
        kind, data = part
        side = tuple(p for p in self.gmap.powers if p == self.power or p in self.draft.to)
        if kind == "pce":
            return messages.Pce(side)
        if kind == "aly":
            return messages.Aly(side, tuple(data))
        if kind == "drw":
            return messages.Drw(side) if self.pda else messages.Drw()
        if kind == "dmz":
            return messages.Dmz(side, tuple(data))
        if kind == "xdo":
            return messages.Xdo(data)
        raise ValueError(f"no arrangement {kind!r}")

    def proposal(self, how: str = "and") -> messages.Prp | None:
        arrs = [self.arrangement_of(p) for p in self.draft.parts]
        if not arrs:
            return None
        if len(arrs) == 1:
            return messages.Prp(arrs[0])
        return messages.Prp(
            messages.Orr(tuple(arrs)) if how == "orr" else messages.And(tuple(arrs))
        )

    def check(self, snd: messages.Snd, reachable: Sequence[str]) -> str | None:
        """Why the server would refuse this SND, or None."""
        if not snd.recipients:
            return "Choose whom to send it to."
        for r in snd.recipients:
            if r == self.power or r not in reachable:
                return f"{self.names.power(r)} cannot receive press now."
        if level_error(snd, self.level, table=self.table) is not None:
            return "The game's press level does not allow that message."
        return None

    # -- the page's requests -------------------------------------------------------------------

    def request(
        self, data: Mapping[str, Any], state: GameState, reachable: Sequence[str]
    ) -> messages.Snd | str | None:
        """A press request from the page: an SND to send, a reason it cannot be (a string for
        the page), or None (the draft changed)."""
        op = data.get("op")
        d = self.draft
        power = str(data.get("power", "")).upper()
        if op == "to" and (power in reachable or power in d.to) and power != self.power:
            d.to = [p for p in d.to if p != power] if power in d.to else [*d.to, power]
            d.to = [p for p in self.gmap.powers if p in d.to]
            d.picked = [p for p in d.picked if p not in d.to]
            return None
        if op == "add":
            kind = str(data.get("kind", ""))
            if kind not in self.kinds() or not self.can_add():
                return "That cannot be added at this game's press level."
            if not d.to:
                return "Choose whom to send it to first."
            if kind in ("pce", "drw"):
                if (kind, None) not in d.parts:
                    d.parts.append((kind, None))
                return None
            d.mode, d.picked, d.xdo = kind, [], None
            return None
        if op == "pick" and d.mode == "aly" and power in self.gmap.powers:
            if power != self.power and power not in d.to:
                d.picked = (
                    [p for p in d.picked if p != power]
                    if power in d.picked
                    else [
                        *d.picked,
                        power,
                    ]
                )
            return None
        if op == "done" and d.mode in ("aly", "dmz"):
            if not d.picked:
                return "Pick at least one " + ("power." if d.mode == "aly" else "province.")
            d.parts.append((d.mode, tuple(d.picked)))
            d.mode, d.picked = None, []
            return None
        if op == "abort":
            d.mode, d.picked, d.xdo = None, [], None
            return None
        if op == "drop":
            k = data.get("index")
            if isinstance(k, int) and 0 <= k < len(d.parts):
                del d.parts[k]
            return None
        if op == "send":
            prp = self.proposal(str(data.get("how", "and")))
            if prp is None:
                return "Add something to propose first."
            snd = messages.Snd(tuple(d.to), prp)
            why = self.check(snd, reachable)
            if why is not None:
                return why
            self.draft = Draft(to=list(d.to))
            return snd
        if op in ("reply", "cancel"):
            return self._answer(op, data, reachable, state.phase.name)
        return None

    def _answer(
        self, op: str, data: Mapping[str, Any], reachable: Sequence[str], now: str
    ) -> messages.Snd | str:
        seq = data.get("seq")
        p = proposals(self.items, self.table, now).get(seq) if isinstance(seq, int) else None
        if p is None or p.state != WAITING:
            return "That proposal is no longer waiting for an answer."
        if op == "cancel":
            if p.item.sender != self.power:
                return "Only the proposer may cancel a proposal."
            snd = messages.Snd(p.item.recipients, messages.Ccl(p.item.press))
        else:
            answer = ANSWERS.get(str(data.get("answer")))
            if answer is None or self.power not in p.item.recipients:
                return "That is no answer to this proposal."
            if self.power in p.replies:
                return "You have answered it already."
            # The convention: a reply goes to the proposer and every other recipient.
            to = tuple(x for x in (p.item.sender, *p.item.recipients) if x != self.power)
            snd = messages.Snd(to, answer(p.item.press))
        return self.check(snd, reachable) or snd

    # -- the map, while picking ------------------------------------------------------------------

    def picking(self) -> bool:
        return self.draft.mode in ("dmz", "xdo")

    def click(self, loc: str, state: GameState) -> None:
        d = self.draft
        prov = province_of(loc.upper())
        if d.mode == "dmz":
            if prov in self.gmap.provinces:
                d.picked = (
                    [p for p in d.picked if p != prov]
                    if prov in d.picked
                    else [
                        *d.picked,
                        prov,
                    ]
                )
            return
        if d.mode != "xdo":
            return
        side = {self.power, *d.to}
        if d.xdo is None or (d.xdo.key is None and not d.xdo.coasts):
            unit = state.units.get(prov)
            if state.phase.kind == "retreat":
                dis = state.dislodged.get(prov)
                unit = dis.unit if dis is not None else None
            if unit is None or unit.power not in side:
                return
            d.xdo = OrderBuilder(state, unit.power)
            d.xdo.select(prov)
            return
        action = d.xdo.click(loc, {})
        if action is not None:
            self._xdo_done(action[1])

    def choose(self, item: str) -> None:
        d = self.draft
        if item == "cancel":
            d.mode, d.picked, d.xdo = None, [], None
        elif item == "done" and d.mode == "dmz" and d.picked:
            d.parts.append(("dmz", tuple(d.picked)))
            d.mode, d.picked = None, []
        elif d.mode == "xdo" and d.xdo is not None:
            action = d.xdo.choose(item, {})
            if action is not None:
                self._xdo_done(action[1])

    def _xdo_done(self, order: Order) -> None:
        d = self.draft
        if not isinstance(order, Waive):
            d.parts.append(("xdo", order))
        d.mode, d.xdo = None, None

    def offer(self) -> Offer | None:
        """What the map and the menu show while a zone or an order is picked."""
        d = self.draft
        if d.mode == "dmz":
            names = join([self.names.province(p) for p in d.picked]) if d.picked else "none yet"
            return Offer(
                selected=list(d.picked),
                menu=[MenuItem("done", "Done"), MenuItem("cancel", "Cancel")],
                prompt=f"Demilitarised zone: click its provinces, then Done (picked: {names}).",
            )
        if d.mode == "xdo":
            if d.xdo is None or (d.xdo.key is None and not d.xdo.coasts):
                who = join([self.names.power(p) for p in (self.power, *d.to)], "or")
                return Offer(
                    menu=[MenuItem("cancel", "Cancel")],
                    prompt=f"Proposing an order: click a unit of {who}.",
                )
            inner = d.xdo.offer({})
            menu = [i for i in inner.menu if i.id != "clear"]
            return Offer(inner.selected, inner.highlight, menu, f"Proposing: {inner.prompt}")
        return None

    def draft_orders(self) -> list[Order]:
        """The orders the draft proposes (drawn on the map as pending)."""
        return [data for kind, data in self.draft.parts if kind == "xdo"]

    # -- reading -----------------------------------------------------------------------------

    def conversation_of(self, item: PressItem) -> str:
        others = {item.sender, *item.recipients} - {self.power}
        if self.power not in (item.sender, *item.recipients) or len(others) != 1:
            return GROUP
        return next(iter(others))

    def message_view(self, item: PressItem, props: Mapping[int, Proposal]) -> dict[str, Any]:
        n = self.names
        p = props.get(item.seq)
        view: dict[str, Any] = {
            "seq": item.seq,
            "phase": item.phase,
            "from": item.sender,
            "from_name": n.power(item.sender),
            "to": list(item.recipients),
            "to_names": join([n.power(r) for r in item.recipients]),
            "text": describe(item.press, n),
            "daide": self.codec.text(item.press),
            "mine": item.sender == self.power,
            # The machine handshake (TRY, HUH): hidden from people unless they ask for it.
            "protocol": handshake(item.press),
            "sent": self.sent.get(item.seq),
            "free": isinstance(item.press, messages.FreeText),
        }
        unread = unread_by_program(item, n)
        if unread is not None:  # a person wants to know this, not the machine's echo
            view.update(text=unread, protocol=False, program=True)
        if p is not None:
            view["state"] = p.state
            view["replies"] = {n.power(k): v for k, v in p.replies.items()}
            waiting = p.state == WAITING
            view["can_cancel"] = waiting and item.sender == self.power
            view["can_reply"] = (
                waiting and self.power in item.recipients and self.power not in p.replies
            )
        return view

    def conversations(
        self, items: Sequence[PressItem], now: str | None = None
    ) -> list[dict[str, Any]]:
        """Messages by conversation; proposals still open from before phase ``now`` have
        lapsed."""
        props = proposals(items, self.table, now)
        by_key: dict[str, list[dict[str, Any]]] = {}
        for item in items:
            by_key.setdefault(self.conversation_of(item), []).append(self.message_view(item, props))
        order = [p for p in self.gmap.powers if p != self.power] + [GROUP]
        return [
            {
                "key": k,
                "title": "Several powers" if k == GROUP else self.names.power(k),
                "messages": by_key.get(k, []),
            }
            for k in order
        ]

    def agreements_view(self, phase: str) -> list[dict[str, Any]]:
        return [
            {
                "text": _capital(arrangement(a.arrangement, self.names)),
                "with": join([self.names.power(p) for p in a.parties if p != self.power]),
            }
            for a in self.in_force(phase)
        ]

    def in_force(self, phase: str) -> list[Agreement]:
        return [a for a in agreements(self.items, phase, self.table) if self.power in a.parties]

    def breaches(self, orders: Iterable[Order], state: GameState) -> dict[Order, list[str]]:
        """This power's orders that break its agreements, each with why."""
        found = breaches(orders, self.in_force(state.phase.name), state, self.power)
        return {
            o: [
                f"breaks {arrangement(a.arrangement, self.names)}, agreed with "
                + join([self.names.power(p) for p in a.parties if p != self.power])
                for a in agreed
            ]
            for o, agreed in found.items()
        }

    def outcomes_view(self, state: GameState, given: Sequence[Order]) -> list[dict[str, Any]]:
        """After a phase: each of this power's agreements that bound it, kept or not (by the
        law, ``protocol.agreements``)."""
        out = []
        for o in outcomes(self.in_force(state.phase.name), state, given):
            arr = o.agreement.arrangement
            what = _capital(arrangement(arr, self.names))
            breakers = join([self.names.power(p) for p in o.breakers])
            if isinstance(arr, messages.Xdo):
                text = f"{what}: done." if o.kept else f"{what}: not done."
            else:
                text = f"{what}: kept." if o.kept else f"{what}: broken by {breakers}."
            out.append({"text": text, "kept": o.kept})
        return out

    def view(
        self,
        state: GameState | None,
        reachable: Sequence[str],
        playing: bool,
        finished: bool,
    ) -> dict[str, Any]:
        d = self.draft
        n = self.names
        allies = (self.power, *d.to)
        prp = self.proposal("and")
        parts = []
        for part in d.parts:
            arr = self.arrangement_of(part)
            parts.append({"text": _capital(arrangement(arr, n)), "kind": part[0]})
        view: dict[str, Any] = {
            "level": self.level,
            "open": playing,
            "conversations": self.conversations(
                self.items, state.phase.name if state is not None and not finished else None
            ),
            "powers": [
                {
                    "power": p,
                    "name": n.power(p),
                    "can": p in reachable,
                    "to": p in d.to,
                    "picked": p in d.picked,
                    "enemy": p not in allies,
                }
                for p in self.gmap.powers
                if p != self.power
            ],
            "kinds": [{"id": k, "label": KINDS[k][1]} for k in self.kinds()]
            if playing and self.can_add() and d.to
            else [],
            "mode": d.mode,
            "parts": parts,
            "combine": self.level >= 30 and len(d.parts) > 1,
            "can_send": playing and prp is not None and bool(d.to),
            "preview": describe(prp, n) if prp is not None else "",
            "agreements": self.agreements_view(state.phase.name) if state and not finished else [],
            "count": len(self.items),
        }
        return view


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


__all__ = [
    "ANSWERS",
    "GROUP",
    "KINDS",
    "PRESS_LEVELS",
    "Draft",
    "PressDesk",
    "stored_items",
]
