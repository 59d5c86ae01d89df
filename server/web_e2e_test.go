package server

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testtools"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// chromium finds Debian's Chromium, or skips the test saying how to get it.
func chromium(t *testing.T) string {
	t.Helper()
	return testtools.Need(t, "chromium", "chromium", "chromium-browser", "google-chrome")
}

// keepShots checks each screenshot is a picture (not an empty capture) and writes it
// under its name into ORTHANC_SCREENSHOTS when set (to look at), else a temporary folder.
func keepShots(t *testing.T, shots map[string][]byte) {
	t.Helper()
	dir := os.Getenv("ORTHANC_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	for name, png := range shots {
		if len(png) < 1000 {
			t.Errorf("%s: %d bytes", name, len(png))
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// headless starts Chromium at exe without a window, in a profile of its own, for at most
// d, with the extra options given; it is closed when the test ends.
func headless(t *testing.T, exe string, d time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, d)
	t.Cleanup(func() { cancelTime(); cancel(); cancelAlloc() })
	return ctx
}

// testPlayGrace is how long the test servers hold a browser's game whose socket dropped:
// time for a test's socket to come back, and soon over for one that waits for the end.
const testPlayGrace = 3 * time.Second

// webServer starts the server with its web page on a free loopback port, with a hall
// of fame and a message of the day, and returns the page's address.
func webServer(t *testing.T) (*testServer, *Server, string) {
	t.Helper()
	dir := t.TempDir()
	seedFame(t, dir, "Galahad", "Gareth")
	seedDeath(t, dir, "Mordred", "a Balrog", 7)
	cfg := testConfig(dir, defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.Web.PlayGrace = testPlayGrace
	ts, srv := startConfigured(t, cfg)
	if err := srv.setMOTD(storeMOTD("The <b>Balrog</b> wakes on Fridays.")); err != nil {
		t.Fatal(err)
	}
	return ts, srv, "http://" + srv.httpLn.Addr().String()
}

// The web page in a real browser, headless Chromium driven over its DevTools protocol,
// while two knights are online, one of them a guest: the rendered page names them (the
// guest marked), shows the host key's fingerprint as ssh-keygen -l prints it and the
// hall of fame; it fits a phone's width without sideways scrolling, and is shot at a
// phone's and a desktop's width (into ORTHANC_SCREENSHOTS when set, to look at).
func TestTheWebPageInABrowser(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	ts, srv, base := webServer(t)
	knight := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	knight.enterDungeon("Lancelot")
	g, err := dialGuest(ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	guest := terminalOn(t, g, 80, 24, nil, "")
	guest.enterDungeon("Tom")

	ctx := headless(t, exe, 60*time.Second)

	shot := func(w, h int64) []byte {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h)); err != nil {
			t.Fatalf("the browser at %d×%d: %v", w, h, err)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("a screenshot at %d×%d: %v", w, h, err)
		}
		return png
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#fame"))); err != nil {
		t.Fatalf("the browser: %v", err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatalf("the page's text: %v", err)
	}
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
	if err != nil {
		t.Fatalf("the page's width: %v", err)
	}
	phone := shot(390, 844)
	desktop := shot(1280, 900)
	for _, want := range []string{"Lancelot", "Guest Tom", "guest", "Galahad", "Gareth", "Hall of fame",
		keys.Fingerprint(srv.hostKey), "ssh -p ", "play --plain", "The <b>Balrog</b> wakes on Fridays.", "Mordred, level 3, slain by a Balrog on level 7"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered page lacks %q:\n%s", want, text)
		}
	}
	if overflow {
		t.Error("the page is wider than a phone's screen")
	}
	keepShots(t, map[string][]byte{"page-phone.png": phone, "page-desktop.png": desktop})
}

// The page's JSON, read over real HTTP from the running server: who is online (the
// guest marked), the hall of fame, the status with the host key, the listing for MUD
// directories; and no route writes.
func TestTheWebPageAPI(t *testing.T) {
	ts, srv, base := webServer(t)
	knight := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	knight.enterDungeon("Lancelot")
	get := func(path string, v any) *http.Response {
		t.Helper()
		r, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		if v != nil {
			if err := json.NewDecoder(r.Body).Decode(v); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		return r
	}
	var st web.Status
	waitUntil(t, "the knight on the page", func() bool {
		get("/api/status", &st)
		return len(st.Online) == 1
	})
	if st.Online[0].Name != "Lancelot" || st.HostKey != keys.Fingerprint(srv.hostKey) || st.HostKeyType != "ssh-ed25519" ||
		!strings.HasPrefix(st.KnownHosts, "[localhost]:") || !strings.Contains(st.KnownHosts, " ssh-ed25519 AAAA") || len(st.Fame) != 2 || st.Version != testVersion {
		t.Fatalf("/api/status = %+v", st)
	}
	var fame []web.Fame
	if get("/api/fame", &fame); len(fame) != 2 || fame[0].Name != "Galahad" {
		t.Fatalf("/api/fame = %+v", fame)
	}
	var m map[string]string
	if get("/mssp.json", &m); m["NAME"] != "Orthanc" || m["PLAYERS"] != "1" || m["CODEBASE"] != web.Codebase {
		t.Fatalf("/mssp.json = %v", m)
	}
	r, err := http.Post(base+"/api/who", "application/json", strings.NewReader(`{"kick":"Lancelot"}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST /api/who = %d", r.StatusCode)
	}
	if r := get("/api/kick", nil); r.StatusCode != http.StatusNotFound {
		t.Fatalf("/api/kick = %d", r.StatusCode)
	}
}

// storeMOTD is a message of the day set by a test.
func storeMOTD(text string) store.MOTD {
	return store.MOTD{Text: text, By: "SHA256:test", At: time.Now()}
}

// seedDeath puts a dead knight's tombstone into the data folder before the server starts.
func seedDeath(t *testing.T, dir, name, killer string, depth int) {
	t.Helper()
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := world.NewAdventurer("SHA256:dead-"+name, name, world.Stats{Str: 12, Int: 12, Con: 12, Dex: 12}, 12)
	a.Level = 3
	a.Death = &world.Death{Killer: killer, Depth: depth, Level: a.Level}
	if err := st.Save(store.Batch{Tombstones: []knights.Tombstone{{Died: time.Now(), Adventurer: a}}}); err != nil {
		t.Fatal(err)
	}
}
