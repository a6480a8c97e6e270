// The page of diplomat: a lobby that creates games, and a game page that shows what the
// server sends. No rule of the game lives here: the server says what to draw, what may be
// clicked and what the menu offers; the page reports clicks and choices.
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
};

// A view comes whenever anything in the game changes, several times a second while bots talk.
// Redrawing a box that shows the same would swap the button under the pointer between press
// and release, and the click would be lost: so a box is refilled only when what it shows
// changed. (Every handler below depends only on what its element's attributes show.)
function fill(box, ...children) {
  const next = box.cloneNode(false);
  next.append(...children);
  if (next.innerHTML === box.innerHTML) return false;
  box.replaceChildren(...next.childNodes);
  return true;
}

function toast(text, level = "info") {
  const box = $("#toast");
  box.textContent = text;
  box.className = level;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, level === "error" ? 6000 : 3500);
}

// -- the lobby -------------------------------------------------------------------------------

function seatKey(game) { return `diplomat-seat-${game}`; }

function myGames() {
  const out = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key.startsWith("diplomat-seat-")) continue;
    try { out.push(JSON.parse(localStorage.getItem(key))); } catch (e) { /* ignore */ }
  }
  return out.sort((a, b) => b.game - a.game);
}

async function lobby() {
  document.body.dataset.page = "lobby";
  $("#lobby").hidden = false;
  $("#title").textContent = "Diplomacy against bots";
  const options = await (await fetch("/api/options")).json();
  const d = options.defaults;
  const maps = options.maps || [{ name: d.map, title: d.map, powers: options.powers }];
  const mapSel = $("#f-map");
  for (const m of maps) {
    mapSel.append(el("option", { value: m.name },
      `${m.title} (${m.powers.length} powers, ${m.provinces} provinces)`));
  }
  mapSel.value = d.map;
  const power = $("#f-power");
  const opps = $("#f-opponents");
  const form = $("#create");
  // The powers and opponents of the chosen map; bots already chosen are kept.
  const showMap = (first) => {
    const m = maps.find((x) => x.name === mapSel.value) || maps[0];
    const chosen = [...opps.querySelectorAll("select")].map((s) => s.value);
    power.textContent = "";
    power.append(el("option", { value: "random" }, "Random"));
    for (const p of m.powers) power.append(el("option", { value: p.id }, p.name));
    power.value = first ? d.power : "random";
    opps.textContent = "";
    for (let i = 0; i < m.powers.length - 1; i++) {
      const sel = el("select", { name: "opponent", "aria-label": `opponent ${i + 1}` });
      for (const b of options.bots) sel.append(el("option", { value: b }, botLabel(b)));
      sel.append(el("option", { value: "open" }, "open seat (a bot connects over TCP)"));
      sel.value = (first ? d.opponents[i] : chosen[i]) || chosen[0] || d.opponents[0];
      opps.append(sel);
    }
    $("#f-others").textContent = String(m.powers.length - 1);
    const sentence = (text) => (text || "").replace(/([^.!?])$/, "$1.");
    $("#f-about").textContent = [sentence(m.description),
      m.designer ? sentence(`Designed by ${m.designer}`) : ""].filter(Boolean).join(" ");
    const year = form.elements.max_year;
    year.min = String(m.first_year);
    year.value = first && m.name === d.map ? (d.max_year ?? "") : String(m.max_year);
  };
  showMap(true);
  mapSel.addEventListener("change", () => showMap(false));
  if (window.peopleLobby) window.peopleLobby(options, maps);  // people.js: with friends
  const level = $("#f-level");
  level.value = String(d.level ?? 0);
  const hint = () => {
    $("#level-hint").textContent = level.value === "0"
      ? "Gunboat: no press, and nobody learns who plays whom until the end. Orders are " +
        "entered by clicking on the map."
      : "Press from menus, as DAIDE allows at this level: only the negotiating bots " +
        `(${options.bots.filter((b) => b.endsWith(" --negotiate")).map(botLabel).join("; ")}) ` +
        "answer. Orders are entered by clicking on the map.";
  };
  level.addEventListener("change", hint);
  hint();
  if (options.public) {  // (serve --public: every game is listed)
    form.elements.listed.checked = true;
    form.elements.listed.disabled = true;
  }
  for (const key of ["move_time", "retreat_time", "build_time"]) {
    form.elements[key].value = d[key] ?? "";
  }
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const num = (key) => (form.elements[key].value === "" ? null : Number(form.elements[key].value));
    const spec = {
      map: mapSel.value,
      power: power.value,
      level: Number(level.value),
      opponents: [...opps.querySelectorAll("select")].map((s) => s.value),
      move_time: num("move_time"), retreat_time: num("retreat_time"),
      build_time: num("build_time"), max_year: num("max_year"),
      listed: form.elements.listed.checked,
    };
    Object.assign(spec, (window.peopleSpec && window.peopleSpec()) || {});
    $("#create-button").disabled = true;
    const res = await fetch("/api/games", {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(spec),
    });
    const data = await res.json();
    $("#create-button").disabled = false;
    if (!res.ok) {
      $("#create-error").textContent = data.error;
      $("#create-error").hidden = false;
      return;
    }
    localStorage.setItem(seatKey(data.game), JSON.stringify(
      { game: data.game, token: data.token, power: data.power, created: Date.now() }));
    location.href = data.path;
  });
  const list = $("#my-games");
  const mine = myGames();
  if (mine.length) {
    list.textContent = "";
    const status = {};
    for (const g of await (await fetch("/api/games")).json()) status[g.id] = g;
    for (const g of mine) {
      const s = status[g.game];
      const what = s ? `${s.status}${s.phase ? ", " + s.phase : ""}` : "not on this server";
      list.append(el("li", {}, el("a", { href: `/game/${g.game}?t=${g.token}` },
        `Game ${g.game}: ${g.power}`), ` (${what})`));
    }
  }
}

function botLabel(b) {
  return b.endsWith(" --negotiate") ? `${b.split(" ")[0]}, negotiating` : b;
}

// -- the game --------------------------------------------------------------------------------

const game = {
  id: null, token: null, ws: null, view: null, svg: "", historyIndex: null,
  shown: null,  // the drawing the map shows
  history: null, deadline: null, deadlineAt: 0, retry: 0, over: false, serial: -1,
  placed: false,  // the map has been zoomed to the player's units (phones) once
  conv: null,  // the conversation shown
  read: {},  // conversation -> the last message seq read there
  announced: null,  // the last message seq announced
  unread: 0,
  looked: false,  // the person has looked at the press since the page was last hidden
  // Show the machine handshake (TRY, HUH: what bots say to each other about the press they
  // discuss)? Hidden unless the person asks; remembered on this browser.
  protocol: localStorage.getItem("diplomat-press-protocol") === "yes",
};

function send(msg) {
  if (game.ws && game.ws.readyState === WebSocket.OPEN) game.ws.send(JSON.stringify(msg));
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws`);
  game.ws = ws;
  ws.addEventListener("open", () => {
    game.retry = 0;
    $("#banner").hidden = game.historyIndex === null;
    ws.send(JSON.stringify(game.watching ? { t: "watch", game: game.id }
      : { t: "hello", game: game.id, token: game.token }));
  });
  ws.addEventListener("message", (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.t === "view") showView(msg);
    else if (msg.t === "history") showHistory(msg);
    else if (msg.t === "notice") toast(msg.text, msg.level);
    else if (msg.t === "error") { game.over = true; fatal(msg.text); }
  });
  ws.addEventListener("close", () => {
    if (game.over) return;
    document.body.dataset.connected = "no";
    const wait = Math.min(5000, 500 * 2 ** game.retry++);
    toast("Connection lost: reconnecting…", "error");
    setTimeout(connect, wait);
  });
}

function fatal(text) {
  $("#game").hidden = true;
  $("#lobby").hidden = true;
  document.body.append(el("p", { class: "card fatal" }, text, " ", el("a", { href: "/" }, "Back")));
}

function startGame(id) {
  document.body.dataset.page = "game";
  game.id = id;
  if (!game.watching) {  // (a spectator's page needs no token: see lobby.js)
    const url = new URL(location.href);
    let token = url.searchParams.get("t");
    const saved = JSON.parse(localStorage.getItem(seatKey(id)) || "null");
    if (!token && saved) token = saved.token;
    if (!token) { fatal("This page needs the link with the seat's token."); return; }
    game.token = token;
    if (!saved || saved.token !== token) {
      localStorage.setItem(seatKey(id), JSON.stringify({ game: id, token, created: Date.now() }));
    }
  }
  notifyButton();
  $("#game").hidden = false;
  $("#map").addEventListener("click", onMapClick);
  $("#ready").addEventListener("click", () => {
    // The phase shown goes with it: the server refuses a Ready the game has moved past.
    send({ t: "ready", on: !(game.view && game.view.ready), phase: game.view && game.view.phase });
  });
  $("#typed").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("#typed-text").value.trim();
    if (text) send({ t: "order", text });
    $("#typed-text").value = "";
  });
  $("#steps").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-step]");
    if (b) step(b.dataset.step);
  });
  $("#zoom").addEventListener("click", () => {
    const on = $("#map").classList.toggle("zoomed");
    $("#zoom").setAttribute("aria-pressed", on ? "true" : "false");
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") send({ t: "choose", id: "cancel" });
  });
  setInterval(tick, 250);
  connect();
}

// The map is redrawn only when the drawing changed (see fill).
function showMap(svg) {
  if (game.shown === svg) return;
  $("#map").innerHTML = svg;
  game.shown = svg;
}

function onMapClick(ev) {
  if (game.watching || game.historyIndex !== null || !game.view || game.view.stage !== "playing") return;
  const hit = ev.target.closest("[data-loc], [data-prov]");
  if (!hit) return;
  const loc = hit.dataset.loc || hit.dataset.prov;
  send({ t: "click", loc });
}

function showView(v) {
  const first = !game.view;
  const phaseChanged = game.view && game.view.phase !== v.phase;
  game.view = v;
  document.body.dataset.connected = "yes";
  document.body.dataset.stage = v.stage;
  game.title = `${v.spectator ? "Watching" : v.power_name} · ${v.phase_title} · diplomat`;
  setTitle();
  $("#title").textContent = v.spectator ? `${v.name || `Game ${v.game}`} · watching`
    : `${v.name} · you are ${v.power_name}`;
  $("#phase").textContent = v.phase_title;
  if (v.svg !== null && v.svg !== undefined) game.svg = v.svg;
  if (game.historyIndex === null) showMap(game.svg);
  game.over = v.stage === "finished";
  // Deadline.
  game.deadline = v.deadline ?? null;
  game.deadlineAt = performance.now();
  game.paused = !!v.paused;
  tick();
  // Ready.
  const ready = $("#ready");
  ready.hidden = v.stage !== "playing" || !v.can_ready && !v.ready;
  ready.textContent = v.ready ? "Not ready" : "Ready";
  ready.dataset.ready = v.ready ? "yes" : "no";
  ready.classList.toggle("on", !!v.ready);
  ready.title = v.ready ? "You are done: the phase is processed once everyone is."
    : (v.todo || "Say you are done with this phase.");
  renderForming(v);
  renderOrdering(v);
  renderPowers(v.powers, v.stage === "finished");
  renderResults(v);
  renderPress(v);
  if (typeof talkView === "function") talkView(v);
  renderEnd(v);
  renderSteps();
  const away = (v.results || []).filter((g) => g.away).length;
  if (first && away) {
    toast(`While you were away, ${away} phase${away > 1 ? "s were" : " was"} played without ` +
      "your orders: see the results.", "error");
  } else if (phaseChanged && v.results && v.results.length) {
    toast(`${v.results[0].title} resolved: see the results.`);
  }
  if (first && v.refused) toast(v.refused, "error");
  lobbyOnView(v, phaseChanged);
  if (!game.placed && v.stage === "playing" && game.historyIndex === null) {
    game.placed = true;
    zoomToMine(v.power);
  }
}

// A phone starts zoomed in, scrolled to the player's own units (the whole map is too small
// to read there).
function zoomToMine(power) {
  if (!window.matchMedia("(max-width: 820px)").matches) return;
  const map = $("#map");
  map.classList.add("zoomed");
  $("#zoom").setAttribute("aria-pressed", "true");
  const units = [...map.querySelectorAll(`.unit[data-power="${power}"]`)];
  if (!units.length) return;
  const box = map.getBoundingClientRect();
  const rects = units.map((u) => u.getBoundingClientRect());
  const left = Math.min(...rects.map((r) => r.left)), right = Math.max(...rects.map((r) => r.right));
  const top = Math.min(...rects.map((r) => r.top)), bottom = Math.max(...rects.map((r) => r.bottom));
  map.scrollLeft += (left + right) / 2 - (box.left + box.width / 2);
  map.scrollTop += (top + bottom) / 2 - (box.top + map.clientHeight / 2);
}

function renderForming(v) {
  const box = $("#forming");
  box.hidden = v.stage !== "forming";
  if (box.hidden) return;
  const f = v.forming;
  const kids = [el("h2", {}, "Waiting for the players"),
    el("p", { id: "joined" }, `${f.joined} of ${f.seats} have joined.`)];
  if (f.open) {
    kids.push(el("p", {}, `${f.open} seat${f.open > 1 ? "s" : ""} wait for bots connecting over TCP` +
      (f.port ? ` to ${f.host}:${f.port}` : "") + "."));
  }
  if (window.peopleForming) kids.push(...window.peopleForming(f));  // people.js
  if (v.spectator) { fill(box, ...kids); return; }
  if (f.creator !== false) {
    kids.push(el("button", { type: "button", id: "start-now",
      onclick: () => send({ t: "start" }) }, "Start now"),
      el("p", { class: "hint" }, "Starting now leaves the empty seats in civil disorder."));
  }
  fill(box, ...kids);
}

function renderOrdering(v) {
  const box = $("#ordering");
  box.hidden = v.stage !== "playing" || !v.menu;
  if (box.hidden) return;
  $("#prompt").textContent = v.prompt || "";
  fill($("#menu"), ...v.menu.map((item) => el("button", { type: "button", "data-id": item.id,
    onclick: () => send({ t: "choose", id: item.id }) }, item.label)));
  const rows = [];
  for (const row of v.orders || []) {
    const li = el("li", { "data-loc": row.loc || "", class: row.order ? "given" : "missing",
      title: row.names || null });
    const text = el("span", { class: "order" }, row.order || `${row.unit}: no order`);
    li.append(text);
    if (row.breaks && row.breaks.length) {
      li.classList.add("breaks");
      li.append(el("span", { class: "warn", title: `This order ${row.breaks.join("; ")}.` }, "⚠"));
    }
    if (row.loc) {
      text.addEventListener("click", () => send({ t: "select", loc: row.loc }));
      if (row.order) {
        li.append(el("button", { type: "button", class: "x", title: "remove this order",
          onclick: () => send({ t: "clear", loc: row.loc }) }, "×"));
      }
    }
    rows.push(li);
  }
  fill($("#orders"), ...rows);
  const broken = (v.orders || []).filter((r) => r.breaks && r.breaks.length);
  $("#todo").textContent = [v.todo || "", ...broken.map((r) =>
    `⚠ ${r.order} ${r.breaks.join("; ")}.`)].filter(Boolean).join(" ");
  const agreed = v.press ? v.press.agreements : [];
  $("#agreements-box").hidden = !agreed.length;
  fill($("#agreements"), ...agreed.map((a) => el("li", {}, `${a.text} (with ${a.with})`)));
}

const STATE_TEXT = {
  out: "eliminated", idle: "—", ordering: "ordering", ordered: "ordered",
  ready: "ready", disorder: "civil disorder",
};

function renderPowers(powers, over) {
  const rows = [];
  for (const p of powers) {
    const tr = el("tr", { class: `${p.you ? "you " : ""}state-${p.state}`, "data-power": p.power });
    const sw = el("span", { class: "swatch" });
    sw.style.background = p.colour;
    tr.append(el("td", {}, sw, p.name + (p.you ? " (you)" : "")),
      el("td", {}, String(p.centres)), el("td", {}, String(p.units)),
      el("td", { class: "state" }, over ? "" : STATE_TEXT[p.state] || p.state));
    rows.push(tr);
  }
  fill($("#powers tbody"), ...rows);
}

// Each power's orders under its name once; hovering an order spells out its places.
function resultItems(lines) {
  const items = [];
  let last = null;
  for (const r of lines) {
    const note = [r.outcome, r.dislodged ? "dislodged" : ""].filter(Boolean).join(", ");
    const first = r.power !== last;
    last = r.power;
    items.push(el("li", { class: `${r.outcome ? "failed" : "ok"}${first ? " first" : ""}`,
      "data-power": r.power, title: r.names || null },
      el("b", {}, first ? r.power : ""), " ", r.text, note ? el("em", {}, ` ${note}`) : ""));
  }
  if (!lines.length) items.push(el("li", { class: "hint" }, "No orders."));
  return items;
}

// Every phase processed since your last orders, newest first: an empty retreat or build
// phase never hides the movement results before it.
function renderResults(v) {
  const box = $("#results");
  const groups = v.results || [];
  box.hidden = !groups.length || game.historyIndex !== null;
  if (!groups.length) return;
  $("#results-title").textContent = v.spectator ? "Latest results" : groups.length > 1
    ? "Results since your last orders" : `Results of ${groups[0].title}`;
  fill($("#results-groups"), ...groups.map((g, k) => {
    const section = el("section", { class: "result-group", "data-phase": g.phase });
    if (groups.length > 1) section.append(el("h3", {}, g.title));
    if (g.away) {
      section.append(el("p", { class: "away" }, "You gave no orders in this phase (you were " +
        "away): your units held, dislodged units disbanded, builds were waived."));
    }
    // What the phase did to the agreements first (a DMZ kept or broken, an XDO done or not).
    if (g.agreements && g.agreements.length) {
      const agreed = el("ul", { class: "agreed" });
      for (const a of g.agreements) {
        agreed.append(el("li", { class: a.kept ? "kept" : "broken" }, a.text));
      }
      section.append(agreed);
    }
    section.append(el("ul", { class: "results" }, ...resultItems(g.lines)));
    if (g.index !== null && g.index !== undefined) {
      section.append(el("button", { type: "button", class: "show", id: k === 0 ? "results-show" : null,
        "data-index": String(g.index),
        onclick: () => send({ t: "history", index: g.index }) }, "Show them on the map"));
    }
    return section;
  }));
}

function renderEnd(v) {
  const box = $("#end");
  box.hidden = !v.end;
  if (!v.end) return;
  const table = el("table", { id: "summary" });
  table.append(el("tr", {}, el("th", {}, "Power"), el("th", {}, "Player"),
    el("th", {}, "SCs"), el("th", {}, "")));
  for (const r of v.end.table || []) {
    table.append(el("tr", { "data-power": r.power }, el("td", {}, r.power),
      el("td", {}, `${r.name} ${r.version}`.trim()), el("td", {}, String(r.centres)),
      el("td", {}, r.eliminated ? `out in ${r.eliminated}` : "")));
  }
  fill(box, el("h2", {}, "The game is over"), el("p", { id: "end-text" }, v.end.text), table);
}

// -- press -----------------------------------------------------------------------------------

function setTitle() {
  document.title = attentionMark() + (game.unread ? `(${game.unread}) ` : "") +
    (game.title || "diplomat");
}

function pressSend(msg) { send(Object.assign({ t: "press" }, msg)); }

const STATE_WORDS = {
  waiting: "waiting", accepted: "accepted", rejected: "rejected", declined: "not now",
  "not understood": "not understood", cancelled: "cancelled",
  lapsed: "lapsed (its phase ended unanswered)",
};

// One message: who to whom, the English (the DAIDE on hover), a proposal's state, and the
// one-click answers (or the cancel) it allows.
function messageItem(m, live) {
  const li = el("li", { class: m.mine ? "mine" : "theirs", "data-seq": String(m.seq),
    "data-state": m.state || "", title: m.daide });
  li.append(el("span", { class: "who" }, `${m.from_name} → ${m.to_names}: `),
    el("span", { class: "text" }, m.text + (m.free ? "" : ".")));
  if (typeof talkMessage === "function") talkMessage(li, m);
  if (m.state) li.append(el("span", { class: `state ${m.state.replace(" ", "-")}` }, STATE_WORDS[m.state] || m.state));
  if (live && (m.can_reply || m.can_cancel)) {
    const acts = el("div", { class: "acts" });
    if (m.can_reply) {
      for (const [answer, label] of [["yes", "Yes"], ["no", "No"], ["bwx", "Not now"]]) {
        acts.append(el("button", { type: "button", "data-answer": answer,
          onclick: () => pressSend({ op: "reply", seq: m.seq, answer }) }, label));
      }
    }
    if (m.can_cancel) {
      acts.append(el("button", { type: "button", "data-act": "cancel",
        onclick: () => pressSend({ op: "cancel", seq: m.seq }) }, "Cancel proposal"));
    }
    li.append(acts);
  }
  return li;
}

// What each conversation has been read up to, kept per device (and per seat: two people may
// share a device and a game).
function readKey() { return `diplomat-press-read-${game.id}-${game.view ? game.view.power : ""}`; }

// The messages a person is shown: without the machine handshake unless they asked for it.
function shown(messages) { return messages.filter((m) => game.protocol || !m.protocol); }

// The "show protocol messages" toggle, made once, under the press card's title.
function protocolToggle() {
  if ($("#press-protocol")) return;
  const box = el("input", { type: "checkbox", id: "press-protocol",
    onchange: (ev) => {
      game.protocol = ev.target.checked;
      localStorage.setItem("diplomat-press-protocol", game.protocol ? "yes" : "no");
      if (game.view) renderPress(game.view);
    } });
  box.checked = game.protocol;
  $("#press h2").after(el("label", { class: "hint", for: "press-protocol",
    title: "what bots say to each other about the press they understand (TRY, HUH)" },
  box, " show protocol messages"));
}

function renderPress(v) {
  const box = $("#press");
  const p = v.press;
  box.hidden = !p;
  if (!p) return;
  protocolToggle();
  const convs = p.conversations.map((c) => Object.assign({}, c, { messages: shown(c.messages) }));
  // New messages from others are announced once each (none at load: the badges say it).
  const all = convs.flatMap((c) => c.messages);
  const top = Math.max(-1, ...all.map((m) => m.seq));
  if (game.announced === null) {
    game.read = JSON.parse(localStorage.getItem(readKey()) || "{}");
  } else {
    const fresh = all.filter((m) => !m.mine && m.seq > game.announced);
    if (fresh.length) {
      const text = fresh.map((m) => `${m.from_name}: ${m.text}.`).join(" ");
      toast(text);
      attend(text);
    }
  }
  game.announced = Math.max(game.announced ?? -1, top);
  if (!game.conv) {
    const latest = convs.filter((c) => c.messages.length)
      .sort((a, b) => b.messages.at(-1).seq - a.messages.at(-1).seq)[0];
    game.conv = latest ? latest.key : convs[0].key;
  }
  const tabs = [];
  let unread = 0;
  for (const c of convs) {
    const last = c.messages.length ? c.messages.at(-1).seq : -1;
    if (c.key === game.conv && game.looked && last >= 0) game.read[c.key] = last;
    const n = c.messages.filter((m) => !m.mine && m.seq > (game.read[c.key] ?? -1)).length;
    unread += n;
    if (!c.messages.length && c.key === "group") continue;
    tabs.push(el("button", { type: "button", "data-key": c.key, role: "tab",
      "aria-selected": c.key === game.conv ? "true" : "false", class: n ? "unread" : "",
      onclick: () => { game.conv = c.key; game.looked = true; renderPress(game.view); } },
      c.title + (n ? ` (${n})` : "")));
  }
  fill($("#conv-tabs"), ...tabs);
  localStorage.setItem(readKey(), JSON.stringify(game.read));
  game.unread = unread;
  setTitle();
  $("#press-unread").hidden = !unread;
  $("#press-unread").textContent = unread ? `${unread} new` : "";
  const conv = convs.find((c) => c.key === game.conv && (c.messages.length || c.key !== "group"))
    || convs[0];
  const list = $("#conv");
  const items = conv.messages.map((m) => messageItem(m, p.open));
  if (!conv.messages.length) items.push(el("li", { class: "empty" }, "No messages yet."));
  if (fill(list, ...items)) list.scrollTop = list.scrollHeight;  // else where the reader left it
  renderCompose(p);
}

function renderCompose(p) {
  $("#compose").hidden = !p.open;
  if (!p.open) return;
  fill($("#press-to"), ...p.powers.map((w) => el("button", { type: "button", "data-power": w.power,
    disabled: !w.can && !w.to, "aria-pressed": w.to ? "true" : "false",
    title: w.can ? null : "cannot receive press now",
    onclick: () => pressSend({ op: "to", power: w.power }) }, w.name)));
  fill($("#press-kinds"), ...(p.mode ? [] : p.kinds).map((k) => el("button", { type: "button",
    "data-kind": k.id, onclick: () => pressSend({ op: "add", kind: k.id }) }, k.label)));
  const pick = [];
  $("#press-pick").hidden = !p.mode;
  if (p.mode === "aly") {
    pick.push(el("p", { class: "hint" }, "An alliance against:"));
    for (const w of p.powers.filter((x) => x.enemy)) {
      pick.push(el("button", { type: "button", "data-power": w.power,
        "aria-pressed": w.picked ? "true" : "false",
        onclick: () => pressSend({ op: "pick", power: w.power }) }, w.name));
    }
    pick.push(el("button", { type: "button", "data-pick": "done",
      onclick: () => pressSend({ op: "done" }) }, "Done"));
  } else if (p.mode === "dmz") {
    pick.push(el("p", { class: "hint" }, "Click the provinces of the zone on the map, then Done."));
  } else if (p.mode === "xdo") {
    pick.push(el("p", { class: "hint" }, "Click a unit on the map, then its order, as for your own."));
  }
  if (p.mode) {
    pick.push(el("button", { type: "button", "data-pick": "abort",
      onclick: () => pressSend({ op: "abort" }) }, "Cancel"));
  }
  fill($("#press-pick"), ...pick);
  fill($("#press-parts"), ...p.parts.map((part, i) => el("li", { "data-kind": part.kind },
    el("span", {}, part.text), el("button", { type: "button", title: "remove",
      onclick: () => pressSend({ op: "drop", index: i }) }, "×"))));
  $("#press-preview").textContent = p.preview ? `${p.preview}.` : "";
  const sendBox = [];
  if (p.can_send) {
    if (p.combine) {
      sendBox.push(el("button", { type: "button", "data-send": "and",
        onclick: () => pressSend({ op: "send", how: "and" }) }, "Propose all of them"),
      el("button", { type: "button", "data-send": "orr",
        onclick: () => pressSend({ op: "send", how: "orr" }) }, "Propose any one"));
    } else {
      sendBox.push(el("button", { type: "button", "data-send": "and",
        onclick: () => pressSend({ op: "send", how: "and" }) }, "Propose"));
    }
  }
  fill($("#press-send"), ...sendBox);
}

// A conversation's messages count as read once the person has looked at the press: opened
// a conversation or clicked in the press card (and until they leave the page).
document.addEventListener("visibilitychange", () => { if (document.hidden) game.looked = false; });
document.addEventListener("click", (ev) => {
  if (game.view && ev.target.closest("#press") && !game.looked) {
    game.looked = true;
    renderPress(game.view);
  }
});

// -- history ---------------------------------------------------------------------------------

function renderSteps() {
  const h = game.view ? game.view.history : [];
  const live = game.historyIndex === null;
  const i = live ? h.length - 1 : game.historyIndex;
  $("#step-label").textContent = h.length ? `${h[i]}${live ? " (now)" : ""}` : "";
  const b = (s) => $(`#steps [data-step="${s}"]`);
  b("first").disabled = b("prev").disabled = i <= 0;
  b("next").disabled = b("last").disabled = live;
}

function step(where) {
  const h = game.view ? game.view.history : [];
  const last = h.length - 1;
  let i = game.historyIndex === null ? last : game.historyIndex;
  if (where === "first") i = 0;
  else if (where === "prev") i = Math.max(0, i - 1);
  else if (where === "next") i = i + 1;
  else i = last;
  if (i >= last) {
    game.historyIndex = null;
    showMap(game.svg);
    $("#banner").hidden = true;
    $("#history-results").hidden = true;
    document.body.dataset.history = "no";
    renderResults(game.view);
    renderSteps();
    return;
  }
  send({ t: "history", index: i });
}

function showHistory(msg) {
  if (msg.count === 0) return;
  game.historyIndex = msg.index;
  document.body.dataset.history = "yes";
  showMap(msg.svg);
  const banner = $("#banner");
  banner.hidden = false;
  fill(banner, `Looking back at ${msg.title}. `,
    el("button", { type: "button", onclick: () => step("last") }, "Back to now"));
  $("#history-results").hidden = false;
  $("#history-title").textContent = `Orders of ${msg.title}`;
  fill($("#history-lines"), ...resultItems(msg.lines));
  $("#results").hidden = true;
  const press = shown(msg.press || []);
  $("#history-press").hidden = !press.length;
  fill($("#history-press-list"), ...press.map((m) => messageItem(m, false)));
  $("#map svg").dataset.history = msg.phase;
  renderSteps();
}

// -- the clock -------------------------------------------------------------------------------

function tick() {
  const clock = $("#clock");
  const v = game.view;
  if (!v || v.stage !== "playing" || game.deadline === null) { clock.hidden = true; return; }
  const left = game.paused ? game.deadline
    : Math.max(0, game.deadline - (performance.now() - game.deadlineAt) / 1000);
  const s = Math.ceil(left);
  const text = clockText(s);
  clock.hidden = false;
  clock.textContent = game.paused ? `${text} (stopped)` : text;
  clock.classList.toggle("urgent", s <= 30);
}

// -- start -----------------------------------------------------------------------------------

const match = location.pathname.match(/^\/game\/(\d+)/);
const watched = location.pathname.match(/^\/watch\/(\d+)/);
if (match) startGame(Number(match[1]));
else if (watched) { game.watching = true; startGame(Number(watched[1])); }
else if (location.pathname === "/games") gamesPage();
else lobby().catch((e) => toast(`Cannot reach the server: ${e}`, "error"));
