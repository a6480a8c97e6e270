// Draw votes and free text (web/talk.py): the draw card beside the press, the free-text box
// under the press composer (press level 8000), and each message's phase and time. The page
// holds no rule: the server says what may be voted and to whom one may write.
"use strict";

function talkSend(msg) { send(msg); }

// The draw card, made once, under the press card (where it moves nothing the person was
// already using).
function drawCard() {
  let card = $("#draw");
  if (card) return card;
  card = el("div", { id: "draw", class: "card", hidden: "" },
    el("h2", {}, "Draw"),
    el("p", { class: "hint" }, "Votes are secret: DAIDE tells nobody who has voted, and the " +
      "server shows nobody a count. The game ends in a draw as soon as every power still in " +
      "the game votes for the same draw in one phase; a vote lasts until the phase ends."),
    el("ul", { id: "draw-votes" }),
    el("div", { id: "draw-acts" }),
    el("div", { id: "draw-pick" }));
  $("#press").after(card);
  return card;
}

function renderDraw(v) {
  const d = v.draw;
  const card = drawCard();
  card.hidden = !d || !d.open;
  if (card.hidden) return;
  fill($("#draw-votes"), ...d.votes.map((vote) => el("li", { "data-powers": (vote.powers || []).join(" ") },
    el("span", {}, `You vote for ${vote.text}. `),
    el("button", { type: "button", "data-act": "unvote",
      onclick: () => talkSend({ t: "draw", on: false, powers: vote.powers }) }, "Take it back"))));
  const everyone = d.votes.some((vote) => !vote.powers);
  fill($("#draw-acts"), ...(everyone ? [] : [el("button", { type: "button", "data-act": "vote",
    onclick: () => talkSend({ t: "draw", on: true, powers: null }) },
  "Vote for a draw of every power still in the game")]));
  if (!d.pda) { fill($("#draw-pick")); return; }
  // Partial draws: the powers ticked here (kept by the page until sent).
  game.drawPick = game.drawPick || new Set();
  const boxes = d.alive.map((p) => el("label", {},
    el("input", { type: "checkbox", "data-power": p.power, checked: game.drawPick.has(p.power),
      onchange: (ev) => { if (ev.target.checked) game.drawPick.add(p.power); else game.drawPick.delete(p.power); } }),
    ` ${p.name} `));
  fill($("#draw-pick"), el("p", { class: "hint" }, "Or a draw of only some powers:"), ...boxes,
    el("button", { type: "button", "data-act": "vote-some",
      onclick: () => talkSend({ t: "draw", on: true, powers: [...game.drawPick] }) },
    "Vote for a draw of these"));
}

// The free-text box, made once, under the press composer.
function textBox() {
  let box = $("#talk-text");
  if (box) return box;
  const input = el("textarea", { id: "talk-input", rows: "3", maxlength: "2000",
    "aria-label": "a message in your own words", placeholder: "Write in your own words…" });
  box = el("div", { id: "talk-text", hidden: "" },
    el("p", { class: "hint", id: "talk-to" }),
    input,
    el("button", { type: "button", id: "talk-send", onclick: () => {
      const p = game.view && game.view.press;
      const to = p ? p.powers.filter((w) => w.to).map((w) => w.power) : [];
      talkSend({ t: "talk", to, text: input.value });
    } }, "Send text"));
  $("#compose").append(box);
  return box;
}

function renderText(v) {
  const p = v.press;
  const live = !!(p && p.open && p.level >= 8000);
  const box = live || $("#talk-text") ? textBox() : null;
  if (!box) return;
  box.hidden = !live;
  if (!live) return;
  const to = p.powers.filter((w) => w.to).map((w) => w.name);
  $("#talk-to").textContent = to.length
    ? `Free text to ${to.join(", ")} (choose them under To:):`
    : "Free text: choose whom to write to under To:, then write.";
  // A message that arrived is the sign the text went: clear the box once it is in the list.
  const mine = p.conversations.flatMap((c) => c.messages).filter((m) => m.mine && m.free);
  const last = mine.length ? Math.max(...mine.map((m) => m.seq)) : -1;
  if (game.talkLast !== undefined && last > game.talkLast) $("#talk-input").value = "";
  game.talkLast = last;
}

// Each message's phase and the time it was sent (the server's clock, shown in local time).
function talkMessage(li, m) {
  const when = m.sent ? new Date(m.sent * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : "";
  li.append(el("span", { class: "when", title: m.sent ? new Date(m.sent * 1000).toString() : null },
    [m.phase, when].filter(Boolean).join(" · ")));
  if (m.program) li.classList.add("program");
}

function talkView(v) {
  renderDraw(v);
  renderText(v);
}
