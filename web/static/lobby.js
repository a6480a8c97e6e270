// The server's games (/games), a spectator's page (/watch/N), and knowing when it is your
// turn: the title and favicon change while the tab is in the background, a browser
// notification when the person allowed it, and the deadlines count down on every page.
// Loaded before app.js: its functions run only once app.js has defined what they use.
"use strict";

// -- attention: a phase processed or a message arrived while nobody looked -----------------

const attention = { count: 0, last: "" };

// The title's mark while something happened in the background ("● 2 · France · ...").
function attentionMark() { return attention.count ? `● ${attention.count} · ` : ""; }

function setIcon(alert) {
  const link = document.querySelector('link[rel="icon"]');
  if (link) link.href = alert ? "/static/icon-alert.svg" : "/static/icon.svg";
}

// Something worth coming back for: marked only while the page is hidden, and notified when
// the person allowed notifications.
function attend(text) {
  if (!document.hidden) return;
  attention.count += 1;
  attention.last = text;
  setIcon(true);
  setTitle();
  if ("Notification" in window && Notification.permission === "granted") {
    try {
      new Notification("diplomat", { body: text, tag: `diplomat-${location.pathname}` });
    } catch (e) { /* a browser that only notifies from a service worker: the title says it */ }
  }
}

document.addEventListener("visibilitychange", () => {
  if (document.hidden || !attention.count) return;
  attention.count = 0;
  setIcon(false);
  setTitle();
});

// A button that asks for notifications, in the header, while the browser has not been asked.
function notifyButton() {
  if (!("Notification" in window) || Notification.permission !== "default") return;
  const b = el("button", { type: "button", id: "notify", title:
    "a browser notification when a phase is processed or a message arrives while this tab " +
    "is in the background" }, "Notify me");
  b.addEventListener("click", async () => {
    await Notification.requestPermission();
    b.remove();
  });
  $("#top").append(b);
}

// What app.js calls after each view: a phase processed in the background calls for attention,
// and a spectator's page shows the press once the game is over.
function lobbyOnView(v, phaseChanged) {
  if (phaseChanged) {
    attend(v.stage === "finished" ? "The game is over." : `Now ${v.phase_title}.`);
  }
  if (v.spectator) renderPressLog(v.press_log || []);
}

// -- a spectator's page ----------------------------------------------------------------------

function renderPressLog(messages) {
  let box = $("#press-log");
  if (!messages.length) { if (box) box.hidden = true; return; }
  if (!box) {
    box = el("div", { id: "press-log", class: "card" },
      el("h2", {}, "Press (everyone's, now that the game is over)"), el("ol", { class: "conv" }));
    $("#results").before(box);
  }
  box.hidden = false;
  fill(box.querySelector("ol"), ...shown(messages).map((m) => messageItem(m, false)));
}

// -- the server's games ----------------------------------------------------------------------

const STAGE_TEXT = { forming: "forming", playing: "in progress", finished: "finished",
  stopped: "stopped" };

function clockText(s) {
  s = Math.ceil(s);
  return s >= 3600 ? `${Math.floor(s / 3600)}h ${String(Math.floor(s / 60) % 60).padStart(2, "0")}m`
    : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function deadlinesText(d) {
  const parts = [["move", "moves"], ["retreat", "retreats"], ["build", "builds"]]
    .filter(([k]) => d[k]).map(([k, label]) => `${label} ${clockText(d[k])}`);
  return parts.length ? parts.join(", ") : "none";
}

function readyText(row) {
  if (row.stage !== "playing") return "";
  const owing = row.powers.filter((p) => ["ordering", "ordered", "ready"].includes(p.state));
  const ready = owing.filter((p) => p.state === "ready");
  return `${ready.length} of ${owing.length} ready`;
}

function gameRow(row) {
  const what = row.stage === "forming" ? `forming, ${row.free_seats} free seat${row.free_seats === 1 ? "" : "s"}`
    : row.stage === "finished" && row.result && row.result.kind
      ? `finished (${row.result.kind})` : STAGE_TEXT[row.stage] || row.stage;
  const clock = el("td", { class: "countdown" });
  if (row.deadline !== null && row.deadline !== undefined) {
    clock.dataset.deadline = String(row.deadline);
    if (row.paused) clock.dataset.paused = "yes";
  }
  const who = el("td", { class: "who", title: row.powers.map((p) =>
    `${p.name}: ${STATE_TEXT[p.state] || p.state}`).join("\n") }, readyText(row));
  return el("tr", { "data-game": String(row.id), "data-stage": row.stage },
    el("td", {}, row.name || `Game ${row.id}`), el("td", {}, row.map), el("td", {}, row.press),
    el("td", {}, deadlinesText(row.deadlines)), el("td", { class: "stage" }, what),
    el("td", {}, row.phase_title || ""), who, clock,
    el("td", {}, el("a", { href: row.watch, class: "watch" }, "Watch")));
}

const games = { fetchedAt: 0 };

async function loadGames() {
  const res = await fetch("/api/list");
  if (!res.ok) throw new Error(`the server answered ${res.status}`);
  const rows = await res.json();
  games.fetchedAt = performance.now();
  const body = $("#games-list tbody");
  body.replaceChildren(...rows.map(gameRow));
  $("#games-empty").hidden = rows.length > 0;
  tickGames();
}

function tickGames() {
  const gone = (performance.now() - games.fetchedAt) / 1000;
  for (const td of document.querySelectorAll("#games-list td[data-deadline]")) {
    const left = Number(td.dataset.deadline) - (td.dataset.paused ? 0 : gone);
    td.textContent = clockText(Math.max(0, left)) + (td.dataset.paused ? " (stopped)" : "");
    td.classList.toggle("urgent", left <= 30);
  }
}

function gamesPage() {
  document.body.dataset.page = "games";
  $("#games").hidden = false;
  $("#title").textContent = "The server's games";
  document.title = "Games · diplomat";
  const refresh = () => loadGames().catch((e) => toast(`Cannot reach the server: ${e}`, "error"));
  refresh();
  setInterval(tickGames, 250);
  setInterval(refresh, 5000);  // (the list is the server's: a new game shows within seconds)
}
