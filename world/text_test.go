package world

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanText(t *testing.T) {
	long := strings.Repeat("ab ", 100)
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "Hello, knights!", "Hello, knights!"},
		{"CSI colour", "\x1b[1;31mred\x1b[0m text", "red text"},
		{"CSI cursor and clear", "a\x1b[2J\x1b[H\x1b[?1049hb", "ab"},
		{"8-bit CSI", "a\u009b31mb", "ab"},
		{"OSC title, BEL", "x\x1b]0;pwned\x07y", "xy"},
		{"OSC hyperlink, ST", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"OSC 52 clipboard write", "copy\x1b]52;c;cm0gLXJmIH4K\x07 me", "copy me"},
		{"8-bit OSC", "a\u009d0;t\u009cb", "ab"},
		{"DCS", "a\x1bP1$r0m\x1b\\b", "ab"},
		{"APC and PM and SOS", "a\x1b_x\x1b\\b\x1b^y\x1b\\c\x1bXz\x1b\\d", "abcd"},
		{"unterminated OSC", "ok\x1b]0;never ends", "ok"},
		{"short ESC forms", "a\x1bcb\x1b7c\x1b(Bd", "abcd"},
		{"lone ESC at end", "abc\x1b", "abc"},
		{"C0 controls", "a\x00b\x07c\x08d\x7fe", "abcde"},
		{"C1 controls", "a\u0085b\u008dc\u0090x\u009cd", "abcd"},
		{"line breaks and tabs", "one\ntwo\r\nthree\tfour", "one two three four"},
		{"line and paragraph separators", "a\u2028b\u2029c", "a b c"},
		{"bidi embeddings and overrides", "a\u202ab\u202bc\u202cd\u202de\u202ef", "abcdef"},
		{"bidi isolates", "a\u2066b\u2067c\u2068d\u2069e", "abcde"},
		{"bidi marks", "a\u200eb\u200fc\u061cd", "abcd"},
		{"zero-width", "a\u200bb\u200cc\u200dd\u2060e\ufefff", "abcdef"},
		{"soft hyphen and fillers", "a\u00adb\u3164c\u180ed", "abcd"},
		{"tag characters", "a\U000E0041\U000E007Fb", "ab"},
		{"private use and noncharacters", "a\ue000b\U000F0000c\uffffd", "abcd"},
		{"combining marks pile up", "Z" + strings.Repeat("\u0336\u0337", 20) + "!", "Z\u0336\u0337\u0336!"},
		{"Vietnamese keeps its marks", "Vie\u0302\u0323t", "Vie\u0302\u0323t"},
		{"invalid UTF-8", "a\xffb\xc0c", "abc"},
		{"spaces collapse and trim", "  a   b  ", "a b"},
		{"accents and other scripts stay", "Ælfgifu çà 騎士", "Ælfgifu çà 騎士"},
		{"cap", long, strings.TrimSpace(long[:200])},
		{"cap counts runes", strings.Repeat("é", 250), strings.Repeat("é", 200)},
		{"escapes do not count", strings.Repeat("\x1b[0m", 300) + "x", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CleanText(tc.in, MaxBroadcastRunes)
			if got != tc.want {
				t.Fatalf("CleanText(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if n := len([]rune(got)); n > MaxBroadcastRunes {
				t.Fatalf("%d runes, over the cap", n)
			}
		})
	}
	if got := CleanText(strings.Repeat("x", 500), 0); len(got) != 500 {
		t.Fatalf("no cap: %d runes", len(got))
	}
}

// FuzzCleanText feeds the sanitiser escape-injection payloads and whatever the fuzzer
// makes of them. The property: nothing CleanText (or CleanLine) lets through is a byte or
// character a terminal would act on, the output is valid UTF-8 within the cap, and
// cleaning twice changes nothing. Run it with go test -fuzz FuzzCleanText ./world.
func FuzzCleanText(f *testing.F) {
	for _, s := range escapeCorpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tc := range []struct {
			name string
			got  string
			cap  int
		}{
			{"CleanText", CleanText(s, MaxChatRunes), MaxChatRunes},
			{"CleanLine", CleanLine(s), 0},
		} {
			if !utf8.ValidString(tc.got) {
				t.Fatalf("%s(%q) = %q is not valid UTF-8", tc.name, s, tc.got)
			}
			if n := utf8.RuneCountInString(tc.got); tc.cap > 0 && n > tc.cap {
				t.Fatalf("%s: %d runes, over the cap", tc.name, n)
			}
			for _, r := range tc.got {
				if acted(r) {
					t.Fatalf("%s(%q) = %q keeps %U", tc.name, s, tc.got, r)
				}
			}
		}
		got := CleanText(s, MaxChatRunes)
		if again := CleanText(got, MaxChatRunes); again != got {
			t.Fatalf("not idempotent: %q then %q", got, again)
		}
	})
}

func TestCleanLineKeepsColumns(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"NAME   LEVEL  WHERE", "NAME   LEVEL  WHERE"},
		{"a\tb\x1b[1mc\u202e  ", "a bc"},
		{"  indented", "  indented"},
	} {
		if got := CleanLine(tc.in); got != tc.want {
			t.Errorf("CleanLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Names that look alike in a terminal are the same name; names that only share letters
// are not.
func TestNameKey(t *testing.T) {
	same := [][2]string{
		{"Gawain", "gawain"},
		{"Bors", "B0RS"},
		{"Lancelot", "Lance1ot"},
		{"Lancelot", "LanceIot"},
		{"Merlin", "Merl1n"},
		{"Sir Kay", "SirKay"},
		{"Sir Kay", "Sir-Kay"},
		{"Martin", "Rnartin"},
		{"Wat", "VVat"},
		{"Dagonet", "Clagonet"},
		{"Sam", "5am"},
		{"Bors", "8ors"},
	}
	for _, p := range same {
		if NameKey(p[0]) != NameKey(p[1]) {
			t.Errorf("%q and %q should be the same name (%q, %q)", p[0], p[1], NameKey(p[0]), NameKey(p[1]))
		}
	}
	for _, p := range [][2]string{{"Kay", "Kai"}, {"Bors", "Boris"}, {"Tor", "Tom"}, {"Ector", "Hector"}} {
		if NameKey(p[0]) == NameKey(p[1]) {
			t.Errorf("%q and %q should be different names", p[0], p[1])
		}
	}
}
