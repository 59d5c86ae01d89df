// The play page's script: it paints the screen the server keeps, row by row as the server
// sends the rows that changed, and sends the keys typed (as the bytes a terminal sends)
// and the window's size in cells. No terminal is emulated here: the server does that.
"use strict";
(function () {
  var screen = document.getElementById("screen");
  var status = document.getElementById("status");
  var measure = document.getElementById("measure");
  var sock = null;
  var rows = [];
  var size = [0, 0];

  // The window's size in cells of the screen's font.
  function cells() {
    var r = measure.getBoundingClientRect();
    var cw = r.width / measure.textContent.length, ch = r.height;
    return [Math.max(1, Math.floor(window.innerWidth / cw)), Math.max(1, Math.floor(window.innerHeight / ch))];
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
      var spans = row[1].map(function (run) {
        var s = document.createElement("span");
        var fg = run[1], bg = run[2], a = run[3];
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
        s.textContent = run[0];
        return s;
      });
      d.replaceChildren.apply(d, spans);
    });
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
      return e.shiftKey && e.key === "Tab" ? "\x1b[Z" : named[e.key];
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
    var b = keyBytes(e);
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

  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      var s = cells();
      if (s[0] !== size[0] || s[1] !== size[1]) {
        size = s;
        send({ size: s });
      }
    }, 100);
  });

  function ended(text) {
    status.textContent = text + " ";
    var a = document.createElement("a");
    a.href = "/play";
    a.textContent = "Play again";
    status.appendChild(a);
  }

  function connect() {
    size = cells();
    var proto = location.protocol === "https:" ? "wss:" : "ws:";
    var key = window.playKey ? "&key=1" : ""; // playkey.js proves the browser's key
    sock = new WebSocket(proto + "//" + location.host + "/play/socket?w=" + size[0] + "&h=" + size[1] + key);
    sock.onopen = function () {
      status.textContent = "";
      screen.focus();
    };
    sock.onmessage = function (e) {
      var m = JSON.parse(e.data);
      if (!(window.playKey && window.playKey.handle(m, send))) {
        paint(m);
      }
    };
    sock.onclose = function (e) {
      ended(e.code === 1000 ? "The game has ended." : "The connection was lost.");
    };
  }
  connect();
})();
