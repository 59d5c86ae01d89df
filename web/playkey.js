// The play page's own key: an Ed25519 key made here with WebCrypto, not extractable, kept
// in IndexedDB (a CryptoKey is kept as it is; localStorage holds only text). Each game
// socket proves it by signing the server's challenge; the link box links it to a knight
// with the one-time code of `keys add`. play.js hands this file the messages that are not
// frames (handle) and asks the challenge only when this file is loaded.
"use strict";
(function () {
  var DOMAIN = "orthanc-ssh play v1\n";
  var box = document.getElementById("who");

  // unable is why this browser cannot keep a key, or "".
  function unable() {
    if (!window.isSecureContext) {
      return "this page is not a secure one (https), where browsers make keys";
    }
    if (!window.crypto || !window.crypto.subtle || !window.indexedDB) {
      return "this browser has no WebCrypto or IndexedDB to make and keep a key";
    }
    return "";
  }

  function request(r) {
    return new Promise(function (ok, fail) {
      r.onsuccess = function () { ok(r.result); };
      r.onerror = function () { fail(r.error); };
    });
  }

  function openDB() {
    var r = indexedDB.open("orthanc-play", 1);
    r.onupgradeneeded = function () { r.result.createObjectStore("keys"); };
    return request(r);
  }

  // load is the browser's key pair: the one kept, or a new one, kept.
  function load() {
    return openDB().then(function (db) {
      return request(db.transaction("keys").objectStore("keys").get("player")).then(function (pair) {
        if (pair) {
          return pair;
        }
        return crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]).then(function (made) {
          var put = db.transaction("keys", "readwrite").objectStore("keys").put(made, "player");
          return request(put).then(function () { return made; });
        }, function () {
          throw new Error("this browser cannot make an Ed25519 key (WebCrypto)");
        });
      });
    });
  }

  var why = unable();
  var pair = why ? Promise.reject(new Error(why)) : load();
  pair.catch(function () {}); // the reason is given with the answer to the challenge

  function base64(buf) {
    return btoa(String.fromCharCode.apply(null, new Uint8Array(buf)));
  }

  // prove is the proof of the key for challenge: its raw public key and signature.
  function prove(challenge) {
    return pair.then(function (p) {
      var msg = new TextEncoder().encode(DOMAIN + location.host + "\n" + challenge);
      return Promise.all([
        crypto.subtle.exportKey("raw", p.publicKey),
        crypto.subtle.sign({ name: "Ed25519" }, p.privateKey, msg)
      ]);
    }).then(function (r) {
      return { key: base64(r[0]), sig: base64(r[1]) };
    });
  }

  function line(text) {
    var p = document.createElement("p");
    p.textContent = text;
    return p;
  }

  // link links the key with code on the link socket, and says what came of it; with
  // claim, code is a guest's and the key keeps that guest's knight.
  function link(code, said, claim) {
    said.textContent = "Linking…";
    var proto = location.protocol === "https:" ? "wss:" : "ws:";
    var s = new WebSocket(proto + "//" + location.host + "/play/link");
    var answered = false;
    s.onmessage = function (e) {
      var m = JSON.parse(e.data);
      if (m.challenge) {
        prove(m.challenge).then(function (proof) {
          s.send(JSON.stringify({ proof: proof, code: code, claim: !!claim }));
        }, function (err) {
          said.textContent = "This browser's key cannot be used: " + err.message + ".";
          s.close();
        });
        return;
      }
      answered = true;
      said.textContent = m.text + " ";
      if (m.ok) {
        // The next load plays the knight, not this guest's game (play.js keeps it).
        if (window.playResume) { window.playResume.forget(); }
        var a = document.createElement("a");
        a.href = "/play";
        a.textContent = "Play it now";
        said.appendChild(a);
      }
    };
    s.onclose = function () {
      if (!answered && said.textContent === "Linking…") {
        said.textContent = "The link was lost; try again.";
      }
    };
  }

  function button(id, text, onclick) {
    var b = document.createElement("button");
    b.type = "button";
    b.id = id;
    b.textContent = text;
    b.addEventListener("click", onclick);
    return b;
  }

  // linkBox is the box's form for a key that plays no knight: a code of keys add links
  // it to a knight, a guest's code keeps that guest's knight.
  function linkBox(who) {
    var label = document.createElement("label");
    label.textContent = "Link to my knight: ";
    var code = document.createElement("input");
    code.id = "link-code";
    code.placeholder = "code from keys add";
    code.autocomplete = "off";
    label.appendChild(code);
    var said = document.createElement("p");
    said.id = "link-said";
    said.setAttribute("role", "status");
    var go = button("link", "Link to my knight", function () {
      if (code.value.trim()) {
        link(code.value.trim(), said, false);
      }
    });
    var keep = button("keep-code", "Keep a guest's knight", function () {
      if (code.value.trim()) {
        link(code.value.trim(), said, true);
      }
    });
    code.addEventListener("keydown", function (e) {
      if (e.key === "Enter") {
        go.click();
      }
    });
    return [line("On a machine that plays your knight, run " + (who.add || "keys add") + " and give its code here" +
      "; or give the code a guest's knight was given as it left, to keep it."), label, go, keep, said];
  }

  // keepBox is the box's words at a guest's end: a page with a key keeps the knight
  // with a button, one without is told where its code can keep it.
  function keepBox(who) {
    var out = [line("You played as a guest: nothing was saved.")];
    if (!who.key) {
      out.push(line("To keep " + who.name + ", give its code " + who.keep + " within " + who.within + " in a browser " +
        "that can keep a key (a page over https), under Keep a guest's knight, or over SSH as the screen says."));
      return out;
    }
    var said = document.createElement("p");
    said.id = "link-said";
    said.setAttribute("role", "status");
    out.push(line("This browser can keep " + who.name + " as it stands, for its own key, within " + who.within + "."));
    out.push(button("keep", "Keep this knight", function () { link(who.keep, said, true); }));
    out.push(said);
    return out;
  }

  // show tells the player who this page plays as; a guest with a key is offered the
  // link, and at its end a guest is offered to keep its knight.
  function show(who) {
    box.replaceChildren();
    if (!who.guest) {
      box.hidden = true;
      return;
    }
    var close = document.createElement("button");
    close.type = "button";
    close.className = "close";
    close.textContent = "×";
    close.setAttribute("aria-label", "close");
    close.addEventListener("click", function () { box.hidden = true; });
    box.appendChild(close);
    var parts;
    if (who.keep) {
      parts = keepBox(who);
    } else {
      var said = who.refused ? who.why : "You play as a guest: " + (who.why || "this browser has no key") + ".";
      parts = [line(said)];
      if (who.link && !who.refused) {
        // The link's form folds under the guest's line, open where there is room: on a
        // short screen (a phone on its side) the box is one line and the map keeps its rows.
        var more = document.createElement("details");
        var roomy = function () { return window.innerHeight >= 600; };
        more.open = roomy();
        var sum = document.createElement("summary");
        sum.textContent = said + " Link to my knight…";
        more.appendChild(sum);
        linkBox(who).forEach(function (p) { more.appendChild(p); });
        // Folded or unfolded by the player, it stays so; else it follows the window (a
        // phone turned on its side folds it).
        var chosen = false;
        sum.addEventListener("click", function () { chosen = true; });
        window.addEventListener("resize", function () {
          if (!chosen && more.open !== roomy()) {
            more.open = roomy();
          }
        });
        parts = [more];
      } else if (who.link) {
        parts = parts.concat(linkBox(who));
      }
    }
    parts.forEach(function (p) { box.appendChild(p); });
    box.hidden = false;
  }

  // Keys typed in the box are the box's, not the game's (play.js listens on the document).
  ["keydown", "paste"].forEach(function (t) {
    box.addEventListener(t, function (e) { e.stopPropagation(); });
  });

  window.playKey = {
    // handle takes a message that is not a frame (the challenge, who the page plays as),
    // and reports whether it was one; send sends a message on the game's socket.
    handle: function (m, send) {
      if (m.challenge) {
        prove(m.challenge).then(function (proof) {
          send({ proof: proof });
        }, function (err) {
          send({ nokey: err.message });
        });
        return true;
      }
      if (m.who) {
        show(m.who);
        return true;
      }
      return false;
    }
  };
})();
