// Games with several people (web/people.py): in the lobby, a seat kind per power (a person,
// a bot, an open TCP seat) and a bot for a seat nobody takes; in a forming game, who has
// joined and, for the game's creator only, each seat's private link to share.
"use strict";

// The lobby's "with friends" part; app.js calls peopleLobby once it has the options, and
// peopleSpec when the form is sent (null: a game against bots only, as before).
window.peopleLobby = function peopleLobby(options, maps) {
  const form = document.querySelector("#create");
  const mapSel = document.querySelector("#f-map");
  const power = document.querySelector("#f-power");
  const bots = document.querySelector("#f-opponents").closest("fieldset");
  const box = document.createElement("fieldset");
  box.id = "f-people";
  box.innerHTML = `<legend>Play with friends</legend>
    <label><input type="checkbox" id="f-with-people"> Choose who plays each power (people
      each get a private link to share)</label>
    <div id="f-seats" hidden></div>
    <label id="f-fill-line" hidden>If a person has not come after
      <input type="number" id="f-fill-after" min="1" max="8191" value="300"> s, their seat goes to
      <select id="f-fill-bot"><option value="">nobody (the game waits)</option></select></label>`;
  bots.after(box);
  const on = box.querySelector("#f-with-people");
  const seats = box.querySelector("#f-seats");
  const fillBot = box.querySelector("#f-fill-bot");
  for (const b of options.bots) fillBot.append(new Option(window.botLabel(b), b));
  const kinds = [["person", "a person (a link to share)"],
    ...options.bots.map((b) => [b, window.botLabel(b)]), ["open", "open seat (TCP bot)"]];
  const draw = () => {
    const m = maps.find((x) => x.name === mapSel.value) || maps[0];
    const before = {};
    for (const s of seats.querySelectorAll("select")) before[s.dataset.power] = s.value;
    seats.textContent = "";
    for (const p of m.powers) {
      const sel = document.createElement("select");
      sel.dataset.power = p.id;
      sel.setAttribute("aria-label", `who plays ${p.name}`);
      for (const [value, label] of kinds) sel.append(new Option(label, value));
      sel.value = before[p.id] || options.defaults.opponents[0];
      const label = document.createElement("label");
      label.append(`${p.name} `, sel);
      seats.append(label);
    }
    mine();
  };
  // Your own power is a person's seat: yours.
  const mine = () => {
    for (const s of seats.querySelectorAll("select")) {
      const yours = s.dataset.power === power.value;
      if (yours) s.value = "person";
      s.disabled = yours;
    }
  };
  const show = () => {
    seats.hidden = !on.checked;
    box.querySelector("#f-fill-line").hidden = !on.checked;
    bots.hidden = on.checked;
    if (on.checked && power.value === "random") power.value = power.options[1].value;
    mine();
  };
  mapSel.addEventListener("change", () => { draw(); show(); });
  power.addEventListener("change", mine);
  on.addEventListener("change", show);
  draw();
  show();
  window.peopleSpec = () => {
    if (!on.checked) return null;
    const spec = { seats: {} };
    for (const s of seats.querySelectorAll("select")) spec.seats[s.dataset.power] = s.value;
    if (fillBot.value) {
      spec.fill_bot = fillBot.value;
      spec.fill_after = Number(form.querySelector("#f-fill-after").value) || null;
    }
    return spec;
  };
};

function copyLink(input, button) {
  const done = () => { button.textContent = "Copied"; };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, () => fallbackCopy(input, done));
  } else {
    fallbackCopy(input, done);
  }
}

function fallbackCopy(input, done) {
  // (Over plain http on a LAN the clipboard API is missing: select and copy.)
  input.focus();
  input.select();
  if (document.execCommand("copy")) done();
}

// The people a forming game waits for: rows for renderForming (app.js).
window.peopleForming = function peopleForming(f) {
  if (!f.people) return [];
  const out = [];
  const list = document.createElement("ul");
  list.id = "people";
  for (const p of f.people) {
    const li = document.createElement("li");
    li.dataset.power = p.power;
    li.dataset.joined = p.joined ? "yes" : "no";
    li.append(`${p.name}: ${p.joined ? "has joined" : "not yet"}`);
    if (p.link && !p.joined) {
      const input = document.createElement("input");
      input.readOnly = true;
      input.value = p.link;
      input.className = "seat-link";
      input.setAttribute("aria-label", `${p.name}'s link`);
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = "Copy";
      button.addEventListener("click", () => copyLink(input, button));
      li.append(input, button);
    }
    list.append(li);
  }
  if (f.creator) {
    out.push(Object.assign(document.createElement("p"), { className: "hint",
      textContent: "Send each person their link (it is their seat: whoever opens it plays " +
        "that power, from any device). The game starts when everyone has joined." }));
  }
  out.push(list);
  if (f.fill) {
    out.push(Object.assign(document.createElement("p"), { className: "hint",
      textContent: `A seat nobody has taken after ${f.fill.after} s goes to ` +
        `${window.botLabel(f.fill.bot)}.` }));
  }
  if (!f.creator) {
    out.push(Object.assign(document.createElement("p"), { className: "hint",
      textContent: "The game's creator starts it when everyone is here." }));
  }
  return out;
};
