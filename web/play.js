// The play page's script: it paints the screen the server keeps, row by row as the server
// sends the rows that changed, and sends the keys typed (as the bytes a terminal sends)
// and the window's size in cells. No terminal is emulated here: the server does that.
"use strict";
(function () {
  var screen = document.getElementById("screen");
  var status = document.getElementById("status");
  var measure = document.getElementById("measure");
  var main = document.getElementById("main");
  var sock = null;
  var rows = [];
  var size = [0, 0];

  // The screen's room in cells of its font: the window's, less the bar and the touch keys.
  function cells() {
    var r = measure.getBoundingClientRect();
    var cw = r.width / measure.textContent.length, ch = r.height;
    return [Math.max(1, Math.floor(main.clientWidth / cw)), Math.max(1, Math.floor(main.clientHeight / ch))];
  }

  // ensureRows makes the screen h rows high.
  function ensureRows(h) {
    while (rows.length < h) {
      var d = document.createElement("div");
      screen.appendChild(d);
      rows.push(d);
    }
    while (rows.length > h) {
      screen.removeChild(rows.pop());
    }
  }

  // paint paints one frame: its rows, each [y, runs], a run [text, fg, bg, attrs].
  function paint(f) {
    ensureRows(f.h);
    f.rows.forEach(function (row) {
      var d = rows[row[0]];
      if (!d) {
        return;
      }
      var spans = [];
      row[1].forEach(function (run) {
        // A run's box-drawing characters go in spans of their own (.x), drawn a little
        // taller than the row, so that a wall joins the rows above and below it.
        run[0].split(boxDrawing).forEach(function (text, i) {
          if (text) {
            var s = styled(text, run[1], run[2], run[3]);
            if (i % 2 === 1) { s.classList.add("x"); }
            spans.push(s);
          }
        });
      });
      d.replaceChildren.apply(d, spans);
    });
  }

  // boxDrawing splits a run into its other text (even parts) and its box-drawing
  // characters (odd parts).
  var boxDrawing = /([\u2500-\u257f]+)/;

  // styled is a span of text in colours fg and bg ("" for the page's) and attributes a.
  function styled(text, fg, bg, a) {
    var s = document.createElement("span");
    if (a & 16) { // reverse
      var t = fg || "#ff8c00";
      fg = bg || "#000000";
      bg = t;
    }
    if (fg) { s.style.color = fg; }
    if (bg) { s.style.backgroundColor = bg; }
    if (a & 1) { s.classList.add("b"); }
    if (a & 2) { s.classList.add("f"); }
    if (a & 4) { s.classList.add("i"); }
    if (a & 8) { s.classList.add("u"); }
    s.textContent = text;
    return s;
  }

  var named = {
    ArrowUp: "\x1b[A", ArrowDown: "\x1b[B", ArrowRight: "\x1b[C", ArrowLeft: "\x1b[D",
    Enter: "\r", Escape: "\x1b", Backspace: "\x7f", Tab: "\t", Delete: "\x1b[3~",
    Home: "\x1b[H", End: "\x1b[F", PageUp: "\x1b[5~", PageDown: "\x1b[6~"
  };

  // keyBytes is what a terminal sends for a key, or "" for one the game has no use for.
  function keyBytes(e) {
    if (e.metaKey || e.altKey) {
      return "";
    }
    if (named[e.key]) {
      if (e.shiftKey && e.key === "Tab") {
        return "\x1b[Z";
      }
      // An arrow with Shift or Ctrl is sent as xterm sends it (ESC [ 1 ; mod X): Shift and
      // an arrow opens a door, as the game's hint says.
      var mod = 1 + (e.shiftKey ? 1 : 0) + (e.ctrlKey ? 4 : 0);
      if (mod > 1 && e.key.indexOf("Arrow") === 0) {
        return "\x1b[1;" + mod + named[e.key].slice(2);
      }
      return named[e.key];
    }
    if (e.key.length !== 1) {
      return "";
    }
    if (e.ctrlKey) {
      var c = e.key.toLowerCase().charCodeAt(0);
      return c >= 97 && c <= 122 ? String.fromCharCode(c - 96) : "";
    }
    return e.key;
  }

  function send(m) {
    if (sock && sock.readyState === WebSocket.OPEN) {
      sock.send(JSON.stringify(m));
    }
  }

  document.addEventListener("keydown", function (e) {
    if (ownKeys(e.target)) {
      return;
    }
    var b = keyBytes(e);
    keyed = e.target === typeBox && b !== "";
    if (b) {
      e.preventDefault();
      send({ keys: b });
    }
  });
  document.addEventListener("paste", function (e) {
    var text = e.clipboardData && e.clipboardData.getData("text");
    if (text) {
      e.preventDefault();
      send({ keys: "\x1b[200~" + text + "\x1b[201~" });
    }
  });

  // sendSize tells the server the screen's new room, when it changed.
  function sendSize() {
    var s = cells();
    if (s[0] !== size[0] || s[1] !== size[1]) {
      size = s;
      send({ size: s });
    }
  }
  var resizing = null;
  function resized() {
    clearTimeout(resizing);
    resizing = setTimeout(sendSize, 100);
  }
  window.addEventListener("resize", resized);
  // The screen's room changes without the window too: the who box shows or goes.
  if (window.ResizeObserver) {
    new ResizeObserver(resized).observe(main);
  }

  function ended(text) {
    status.textContent = text + " ";
    var a = document.createElement("a");
    a.href = "/play";
    a.textContent = "Play again";
    status.appendChild(a);
  }

  // A dropped socket (a phone that slept, a network that changed) comes back to the same
  // game with the token the server gave for it: kept in this tab's sessionStorage, so a
  // reload takes the game up and another tab does not, and sent back once kept (until
  // then the server holds the one this tab came with good too). The server holds the game for
  // grace seconds; the page tries again, at growing intervals, until then.
  var tokenKey = "orthanc.play.resume";
  var grace = 60, lostAt = 0, retry = null, delay = 500, painted = false, taken = "";

  function token() {
    try { return sessionStorage.getItem(tokenKey) || ""; } catch (e) { return ""; }
  }
  function keep(t) {
    try {
      if (t) { sessionStorage.setItem(tokenKey, t); } else { sessionStorage.removeItem(tokenKey); }
    } catch (e) { /* no storage: the game still plays, but cannot be taken up again */ }
  }

  // A page that starts another game (a browser's key linked to a knight) forgets this one.
  window.playResume = { forget: function () { keep(""); } };

  function comeBack() {
    clearTimeout(retry);
    retry = null;
    if (Date.now() - lostAt > (grace + 5) * 1000) {
      keep("");
      ended("The connection was lost.");
      return;
    }
    connect();
  }

  function lost() {
    if (!lostAt) { lostAt = Date.now(); delay = 500; }
    status.textContent = "The connection was lost; coming back…";
    retry = setTimeout(comeBack, delay);
    delay = Math.min(delay * 2, 8000);
  }
  // Back on the network, or the phone awake: try at once.
  function now() { if (retry) { comeBack(); } }
  window.addEventListener("online", now);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      unmark();
      now();
    }
  });

  // The bell the game rings (a frame's "bell"): the page flashes (play.css's .bell),
  // a hidden tab's title is marked "(!) " until the tab is seen again, and a short tone
  // sounds once the player has touched the page, as browsers allow sound no sooner.
  // body's data-bells counts the bells rung, for the tests.
  var flashing = 0, audio = null;
  var mark = "(!) ";
  function ring() {
    document.body.dataset.bells = String(Number(document.body.dataset.bells || 0) + 1);
    document.body.classList.add("bell");
    clearTimeout(flashing);
    flashing = setTimeout(function () { document.body.classList.remove("bell"); }, 300);
    if (document.hidden && document.title.indexOf(mark) !== 0) {
      document.title = mark + document.title;
    }
    tone();
  }
  function unmark() {
    if (document.title.indexOf(mark) === 0) {
      document.title = document.title.slice(mark.length);
    }
  }
  function tone() {
    if (!audio || audio.state !== "running") {
      return;
    }
    var o = audio.createOscillator(), g = audio.createGain(), t = audio.currentTime;
    o.frequency.value = 880;
    g.gain.setValueAtTime(0.2, t);
    g.gain.exponentialRampToValueAtTime(0.001, t + 0.12); // no click at the end
    o.connect(g);
    g.connect(audio.destination);
    o.start(t);
    o.stop(t + 0.12);
  }
  // The first touch of the page (a key, a tap, a click) makes the audio context: made
  // in the gesture, it may sound.
  function hear() {
    var A = window.AudioContext || window.webkitAudioContext;
    if (!audio && A) {
      audio = new A();
    }
    if (audio && audio.state === "suspended") {
      audio.resume();
    }
  }
  ["keydown", "pointerdown"].forEach(function (t) {
    document.addEventListener(t, hear, { capture: true, passive: true });
  });

  function connect() {
    size = cells();
    var proto = location.protocol === "https:" ? "wss:" : "ws:";
    var key = window.playKey ? "&key=1" : ""; // playkey.js proves the browser's key
    var t = token();
    sock = new WebSocket(proto + "//" + location.host + "/play/socket?w=" + size[0] + "&h=" + size[1] + key +
      (plain ? "&plain=1" : "") + (t ? "&resume=" + encodeURIComponent(t) : ""));
    sock.onopen = function () {
      status.textContent = "";
      (plain ? words : screen).focus();
    };
    sock.onmessage = function (e) {
      var m = JSON.parse(e.data);
      if (m.resume) {
        keep(m.resume);
        send({ resume: m.resume }); // kept: the token this tab came with is spent
        grace = m.grace || grace;
        lostAt = 0;
        return;
      }
      if (m.taken) { // another page took the game up: this one stays down
        taken = m.taken;
        return;
      }
      if (window.playKey && window.playKey.handle(m, send)) {
        // the key's business, done by playkey.js
      } else if (m.lines) {
        painted = true;
        addLines(m.lines);
      } else if ("plain" in m) { // the game's mode: its own change, or a game taken up
        showPlain(m.plain);
      } else {
        painted = true;
        paint(m);
        if (m.bell) { ring(); }
      }
    };
    sock.onclose = function (e) {
      sock = null;
      if (e.code === 4000 && !painted) { // a game left in this tab before, gone: a new one
        keep("");
        connect();
        return;
      }
      if (taken || e.code === 1000 || e.code >= 4000) {
        keep("");
        ended(taken || (e.code === 1000 ? "The game has ended." : e.reason));
        return;
      }
      if (token()) {
        lost();
        return;
      }
      ended("The connection was lost.");
    };
  }
  // Touch screens: the keys a phone's keyboard lacks, beside the screen (play.html's
  // pad); a tap sends the key, Talk opens the chat line and the phone's keyboard.
  var pad = document.getElementById("pad");
  var typeBox = document.getElementById("type");
  var touch = window.matchMedia("(pointer: coarse)").matches;
  document.body.classList.toggle("touch", touch);
  pad.hidden = !touch;
  pad.addEventListener("click", function (e) {
    var b = e.target.closest("button[data-key]");
    if (!b) {
      return;
    }
    var k = b.getAttribute("data-key");
    send({ keys: named[k] || k });
    if (b.hasAttribute("data-type")) {
      typeBox.focus();
    }
  });
  // A phone's keyboard may not say which key it typed (Android's say "Unidentified"), and
  // then the keydown above sends nothing: the text it puts in the box is sent instead.
  var keyed = false; // the keydown sent this key already
  typeBox.addEventListener("input", function (e) {
    var t = e.inputType;
    if (keyed) {
      keyed = false;
    } else if (t === "insertLineBreak") {
      send({ keys: "\r" });
    } else if (t === "deleteContentBackward") {
      send({ keys: "\x7f" });
    } else if (e.data && !e.isComposing) {
      send({ keys: e.data });
    }
    if (!e.isComposing) {
      typeBox.value = "";
    }
  });
  typeBox.addEventListener("compositionend", function (e) {
    if (e.data) {
      send({ keys: e.data });
    }
    typeBox.value = "";
  });

  // Screen-reader mode: the switch (kept in the browser; ?plain=1 or 0 sets it) runs the
  // game in that mode, whose lines come as their own messages into the log (aria-live),
  // and the words typed in the box go on Enter. The grid is hidden, out of the
  // accessibility tree. The log keeps its last logKeep lines.
  var logKeep = 500;
  var reader = document.getElementById("reader");
  var listen = document.getElementById("listen");
  var log = document.getElementById("log");
  var words = document.getElementById("words");
  var asked = new URLSearchParams(location.search).get("plain");
  var plain = asked === "1" || (asked !== "0" && stored() === "1");

  function stored(v) {
    try {
      return v === undefined ? localStorage.getItem("orthanc.plain") : localStorage.setItem("orthanc.plain", v);
    } catch (e) {
      return null; // storage refused: the switch is not remembered
    }
  }

  // showPlain shows the log (on) or the grid.
  function showPlain(on) {
    plain = on;
    reader.checked = on;
    stored(on ? "1" : "0");
    listen.hidden = !on;
    screen.hidden = on;
    pad.hidden = on || !touch;
    sendSize();
    if (on && !ownKeys(document.activeElement)) {
      words.focus(); // the game turned the mode on (its title's y): the words go to the box
    }
  }

  function addLines(lines) {
    lines.forEach(function (l) {
      var p = document.createElement("p");
      p.textContent = l;
      log.appendChild(p);
    });
    while (log.childElementCount > logKeep) {
      log.removeChild(log.firstElementChild);
    }
    log.scrollTop = log.scrollHeight;
  }

  // ownKeys says the keys typed in el are the page's: the command box's, the switch's, the
  // Send button's. The touch box's and the touch keys' (focused by a tap) go to the game.
  function ownKeys(el) {
    return !pad.contains(el) && (el.tagName === "INPUT" || el.tagName === "BUTTON");
  }

  reader.addEventListener("change", function () {
    showPlain(reader.checked);
    send({ plain: plain });
    (plain ? words : screen).focus();
  });
  document.getElementById("say").addEventListener("submit", function (e) {
    e.preventDefault();
    send({ keys: words.value + "\r" });
    words.value = "";
  });

  reader.checked = plain;
  listen.hidden = !plain;
  screen.hidden = plain;
  pad.hidden = plain || !touch;
  connect();
})();
