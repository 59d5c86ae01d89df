package command

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

const keysUsage = "usage: keys [add | remove FINGERPRINT] [--json]"

// keyCells are the cells of keys's table, a line of cells for each line.
func keyCells(out string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		rows = append(rows, regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), -1))
	}
	return rows
}

// keys lists the keys of the key's knight, the first added first, with the one that
// asks marked; a key with no knight, a guest and a word keys does not know are refused.
func TestKeysListsTheKnightsKeys(t *testing.T) {
	d := newPlayerDesk(t, "")
	laptop, desktop := newKey(t), newKey(t)
	added := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	id := d.knight("Kay", laptop, added)
	rec, _ := d.keeper.Knight(id)
	if err := d.keeper.AddKnight(rec, knights.Key{Fingerprint: keys.Fingerprint(desktop), Knight: id, Comment: "the desktop", Added: added.Add(48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := d.keeper.TouchKey(keys.Fingerprint(laptop), added.Add(24*time.Hour), "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := d.run(desktop, "keys")
	want := [][]string{{"FINGERPRINT", "TYPE", "COMMENT", "ADDED", "LAST USED"},
		{keys.Fingerprint(laptop), "ssh-ed25519", "-", "2024-05-01", "2024-05-02"},
		{keys.Fingerprint(desktop), "-", "the desktop", "2024-05-03", "-", "(this key)"}}
	if got := keyCells(out); code != 0 || errOut != "" || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("keys: %d %q\n%s", code, errOut, out)
	}
	d.wantRun(laptop, "keys --json", `[{"fingerprint":"`+keys.Fingerprint(laptop)+`","type":"ssh-ed25519","added":"2024-05-01T10:00:00Z","last_used":"2024-05-02T10:00:00Z","this":true},`+
		`{"fingerprint":"`+keys.Fingerprint(desktop)+`","comment":"the desktop","added":"2024-05-03T10:00:00Z"}]`+"\n", "", 0)

	stranger := newKey(t)
	d.wantRun(stranger, "keys", "", "orthanc: no knight for key "+keys.Fingerprint(stranger)+" yet; connect with a terminal to roll one\n", 1)
	d.wantRun(nil, "keys", "", playerGuestRefusal(), 1)
	d.wantRun(laptop, "keys frob", "", "orthanc: unknown \"frob\"; "+keysUsage+"\n", 1)
	d.wantRun(laptop, "keys add now", "", "orthanc: keys add takes nothing more; "+keysUsage+"\n", 1)
	d.wantRun(laptop, "keys add --json", "", "orthanc: keys add takes nothing more; "+keysUsage+"\n", 1)
	d.wantRun(laptop, "keys remove", "", "orthanc: name the key by its fingerprint; "+keysUsage+"\n", 1)
	d.wantRun(laptop, "keys --all", "", "orthanc: unknown flag \"--all\"; "+keysUsage+"\n", 1)
}

// keysAdd runs keys add from key and returns the code it printed.
func (d *playerDesk) keysAdd(key ssh.PublicKey) string {
	d.t.Helper()
	out, errOut, code := d.run(key, "keys add")
	m := regexp.MustCompile(`^Your code: ([A-Z2-9]{4}-[A-Z2-9]{4}) \(good once, for 10 minutes\)\.\nFrom your other key, run:\n  ssh -p 2222 host link ([A-Z2-9-]+)\n$`).FindStringSubmatch(out)
	if code != 0 || errOut != "" || m == nil || m[1] != m[2] {
		d.t.Fatalf("keys add: %d %q\n%s", code, errOut, out)
	}
	return m[1]
}

// keysOf is keys --json from key.
func (d *playerDesk) keysOf(key ssh.PublicKey) []KeyRow {
	d.t.Helper()
	out, errOut, code := d.run(key, "keys --json")
	var rows []KeyRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != 0 {
		d.t.Fatalf("keys --json: %d %q %q (%v)", code, out, errOut, err)
	}
	return rows
}

// A code from keys add links another key to the knight, once; a key that plays the
// knight already gives the code back, unused.
func TestKeysAddGivesACodeThatLinksAnotherKey(t *testing.T) {
	d := newPlayerDesk(t, "")
	laptop, desktop := newKey(t), newKey(t)
	id := d.knight("Kay", laptop, time.Now())
	code := d.keysAdd(laptop)
	d.wantRun(laptop, "link "+code, "", "orthanc: this key already plays that knight\n", 1)
	d.wantRun(desktop, "link "+strings.ToLower(code)+" --comment the  desktop\x1b[2J", "This key now plays Kay. Connect to play: ssh -p 2222 host\n", "", 0)
	if rows := d.keysOf(laptop); len(rows) != 2 || rows[1].Fingerprint != keys.Fingerprint(desktop) || rows[1].Comment != "the desktop" || rows[1].Type != "ssh-ed25519" {
		t.Fatalf("the knight's keys after the link: %+v", rows)
	}
	if k, err := d.keeper.KeyOf(keys.Fingerprint(desktop)); err != nil || k.Knight != id {
		t.Fatalf("the linked key: %+v %v", k, err)
	}
	d.wantRun(newKey(t), "link "+code, "", "orthanc: no such code, or it has expired or been used; run `keys add` again with your other key\n", 1)
	d.wantRun(desktop, "link", "", "orthanc: give the code that `keys add` printed; usage: link CODE [--replace] [--comment TEXT]\n", 1)
	d.wantRun(desktop, "link A B", "", "orthanc: give the code that `keys add` printed; usage: link CODE [--replace] [--comment TEXT]\n", 1)
	d.wantRun(nil, "link "+code, "", playerGuestRefusal(), 1)
}

// A key that plays a living knight of its own links only with --replace, which entombs
// that knight (the knight is then forgotten: it has no key); one playing now waits until
// it has left; a code of a knight that has ended since is no good.
func TestLinkFromAKeyThatPlaysAnotherKnight(t *testing.T) {
	d := newPlayerDesk(t, "")
	kay, bors := newKey(t), newKey(t)
	kayID, borsID := d.knight("Kay", kay, time.Now()), d.knight("Bors", bors, time.Now())
	if !d.names.Claim("Bors", borsID) {
		t.Fatal("the name book refuses Bors his name")
	}
	code := d.keysAdd(kay)

	p := d.join(borsID)
	d.wantRun(bors, "link "+code, "", "orthanc: this key's knight is in the dungeon; leave the game first\n", 1)
	if _, _, err := p.Leave(d.ctx); err != nil {
		t.Fatal(err)
	}
	d.wantRun(bors, "link "+code, "", "orthanc: this key plays a living knight, Bors; run it again with --replace to retire Bors into a tombstone\n", 1)
	d.wantRun(bors, "link "+code+" --replace", "This key now plays Kay. Connect to play: ssh -p 2222 host\n"+
		"The knight it played before was retired into a tombstone.\n", "", 0)
	if k, err := d.keeper.KeyOf(keys.Fingerprint(bors)); err != nil || k.Knight != kayID {
		t.Fatalf("the key after link --replace: %+v %v", k, err)
	}
	if name := d.names.NameOf(borsID); name != "" {
		t.Fatalf("the entombed knight keeps its name in the name book: %q", name)
	}

	// A code of a knight that died since it was made.
	code = d.keysAdd(kay)
	rec, _ := d.keeper.Knight(kayID)
	rec.Death = &world.Death{Killer: "a giant rat"}
	d.keeper.Put(rec)
	d.wantRun(newKey(t), "link "+code, "", "orthanc: the knight of that code, Kay, has died or retired: its code is no good; roll a new knight and run `keys add` again\n", 1)
	d.wantRun(kay, "keys add", "", "orthanc: your knight is dead or retired; connect to roll a new one, then add keys to it\n", 1)
}

// Wrong codes are counted, per key and address: past MaxCodeTries even a good one is
// refused, for a while.
func TestWrongCodesAreCounted(t *testing.T) {
	d := newPlayerDesk(t, "")
	kay, guesser := newKey(t), newKey(t)
	d.knight("Kay", kay, time.Now())
	code := d.keysAdd(kay)
	for range knights.MaxCodeTries {
		d.wantRun(guesser, "link AAAA-AAAA", "", "orthanc: no such code, or it has expired or been used; run `keys add` again with your other key\n", 1)
	}
	d.wantRun(guesser, "link "+code, "", "orthanc: too many wrong codes from this key or address; wait 10 minutes and try again\n", 1)
	d.wantRun(guesser, "claim "+code, "", "orthanc: too many wrong codes from this key or address; wait 10 minutes and try again\n", 1)
}

// keys remove takes a key from the knight and closes its sessions; never the last key,
// nor a key of another knight.
func TestKeysRemove(t *testing.T) {
	d := newPlayerDesk(t, "")
	laptop, desktop, other := newKey(t), newKey(t), newKey(t)
	d.knight("Kay", laptop, time.Now())
	d.knight("Bors", other, time.Now())
	d.wantRun(desktop, "link "+d.keysAdd(laptop), "This key now plays Kay. Connect to play: ssh -p 2222 host\n", "", 0)
	closed := make(chan struct{})
	d.sessions.Add(edge.LiveSession{Fingerprint: keys.Fingerprint(desktop), Close: func() { close(closed) }})

	d.wantRun(laptop, "keys remove "+keys.Fingerprint(other), "", "orthanc: "+keys.Fingerprint(other)+" is not a key of your knight; `keys` lists them\n", 1)
	d.wantRun(laptop, "keys remove SHA256:\x1b[31mnothing", "", "orthanc: SHA256:[31mnothing is not a key of your knight; `keys` lists them\n", 1)
	d.wantRun(laptop, "keys remove "+keys.Fingerprint(desktop), "Removed "+keys.Fingerprint(desktop)+" from your knight.\n", "", 0)
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the removed key's session was not closed")
	}
	d.wantRun(laptop, "keys remove "+keys.Fingerprint(laptop), "", "orthanc: that is your knight's only key; link another first (keys add)\n", 1)
	if rows := d.keysOf(laptop); len(rows) != 1 || !rows[0].This {
		t.Fatalf("the keys after the removal: %+v", rows)
	}
}

// guestCode is the claim code a guest named name is told as it leaves.
func (d *playerDesk) guestCode(name string) string {
	d.t.Helper()
	rec := world.NewAdventurer(knights.NewGuestID(), app.GuestPrefix+name, world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 8)
	rec.Guest, rec.Gold = true, 42
	code, err := d.codes.Add(knights.CodeEntry{Kind: knights.CodeClaim, Guest: &rec, Addr: "192.0.2.9"})
	if err != nil || code == "" {
		d.t.Fatalf("a guest's code: %q %v", code, err)
	}
	return code
}

// claim gives a key the guest's knight as it left, with its name without the guest's
// mark (a number added when another knight has it); a claim refused lets the name go.
func TestClaimAdoptsAGuestsKnight(t *testing.T) {
	d := newPlayerDesk(t, "")
	first, second, bors := newKey(t), newKey(t), newKey(t)
	d.wantRun(first, "claim "+d.guestCode("Tom"), "This key now plays Tom. Connect to play: ssh -p 2222 host\n", "", 0)
	out, _, _ := d.run(first, "whoami --json")
	var w Whoami
	if err := json.Unmarshal([]byte(out), &w); err != nil || w.Name != "Tom" || w.Gold != 42 || !strings.HasPrefix(w.Knight, "K-") {
		t.Fatalf("whoami of the claimed knight: %s (%v)", out, err)
	}
	if k, _ := d.keeper.KeyOf(keys.Fingerprint(first)); k.Comment != "claimed a guest" {
		t.Fatalf("the claiming key: %+v", k)
	}
	d.wantRun(second, "claim "+d.guestCode("Tom"), "This key now plays Tom 2. Connect to play: ssh -p 2222 host\n", "", 0)

	// A key playing a living knight: refused, and the name it would have had is free.
	d.knight("Bors", bors, time.Now())
	code := d.guestCode("Gareth")
	d.wantRun(bors, "claim "+code, "", "orthanc: this key plays a living knight, Bors; run it again with --replace to retire Bors into a tombstone\n", 1)
	if ok, err := d.keeper.ClaimName("Gareth", "K-OTHER"); !ok || err != nil || !d.names.Claim("Gareth", "K-OTHER") {
		t.Fatalf("the name of a claim refused is still held: %v %v", ok, err)
	}
	d.wantRun(bors, "claim "+code+" --replace", "This key now plays Gareth 2. Connect to play: ssh -p 2222 host\n"+
		"The knight it played before was retired into a tombstone.\n", "", 0)

	d.wantRun(bors, "claim "+code, "", "orthanc: no such code, or it has expired or been used; a guest knight's code is good for 10 minutes after it leaves\n", 1)
	d.wantRun(bors, "claim "+d.keysAdd(bors), "", "orthanc: no such code, or it has expired or been used; a guest knight's code is good for 10 minutes after it leaves\n", 1)
	d.wantRun(bors, "claim", "", "orthanc: give the code you were shown when your guest knight left; usage: claim CODE [--replace]\n", 1)
	d.wantRun(bors, "claim "+code+" --comment x", "", "orthanc: unknown flag \"--comment\"; usage: claim CODE [--replace]\n", 1)
	d.wantRun(nil, "claim "+code, "", playerGuestRefusal(), 1)
}

// What the commands say of a code, and of a guest's name, is what the codes and the
// game make.
func TestCodeWordsAreTheBooks(t *testing.T) {
	if want := fmt.Sprintf("%d minutes", int(knights.CodeLife.Minutes())); CodeLifeWords != want {
		t.Errorf("CodeLifeWords = %q; knights.CodeLife is %v", CodeLifeWords, knights.CodeLife)
	}
	if guestMark != app.GuestPrefix {
		t.Errorf("guestMark = %q, app.GuestPrefix = %q", guestMark, app.GuestPrefix)
	}
}
