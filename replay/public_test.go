package replay

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What a public replay (another knight's, the web page's cast) may hold of each field of a
// view: what anyone nearby could have seen. Every field of world.View and world.Self is
// named here, so a field added to either fails this test until someone decides it.
var (
	publicView = map[string]string{
		"Turn": "seen", "Self": "self", "Level": "seen", "Visible": "seen", "Known": "seen",
		"FoundDoors": "seen", "Traps": "seen", "Others": "seen", "crowd": "seen", "viewer": "seen",
		"Log": "lines", "Said": "lines", "publicSaid": "lines", "FightSeq": "seen",
		"Watchers": "count", "Monsters": "seen", "Shadows": "seen", "Fight": "seen", "LastFight": "seen",
		"Dead": "no last lines", "Retired": "seen", "Party": "seen", "Invites": "hidden", "Asks": "hidden",
		"Surface": "seen", "Ended": "hidden",
	}
	publicSelf = map[string]string{
		"Name": "seen", "ID": "hidden", "Born": "hidden", "Level": "seen", "Experience": "seen", "Hits": "seen",
		"MaxHits": "seen", "SpellUnits": "seen", "Str": "seen", "Int": "seen", "Con": "seen", "Dex": "seen",
		"Depth": "seen", "Pos": "seen", "Feature": "seen", "Gold": "seen", "TreasureExperience": "seen",
		"Items": "seen", "Light": "seen", "Effects": "seen", "Status": "seen", "Options": "hidden",
		"Unread": "hidden", "Away": "seen", "Deeds": "not recorded",
	}
)

// A public view holds nothing of the knight's own: a view with every private field set
// (its options and mutes, unread letters, invitations, last lines, spectators' names, and
// a line of every kind in its log) comes out of a public timeline with those empty, the
// spectators a count, and only the public lines; its own timeline keeps them all.
func TestAPublicViewHoldsNothingPrivate(t *testing.T) {
	for typ, decided := range map[reflect.Type]map[string]string{reflect.TypeFor[world.View](): publicView, reflect.TypeFor[world.Self](): publicSelf} {
		for f := range typ.Fields() {
			if decided[f.Name] == "" {
				t.Errorf("%s.%s is not decided: say in publicView or publicSelf whether a public replay may hold it", typ.Name(), f.Name)
			}
		}
	}
	secret := "SECRET"
	v := world.View{
		Turn: 7,
		Self: world.Self{Name: "Cador", ID: "K-CADOR", Born: time.Date(2026, 6, 1, 13, 0, 0, 0, time.UTC), Level: 3, Hits: 9, MaxHits: 12,
			Unread: 3, Away: true,
			Options: world.Options{Muted: []string{"Mordred" + secret}, PrivateReplays: true, NoSpectators: true, Theme: "dark", Plain: true}},
		Watchers: []string{"Bedwyr" + secret, "Lot" + secret},
		Invites:  []string{"Gawain" + secret},
		Asks:     []string{"Percival" + secret},
		Dead:     &world.Death{Killer: "a Wolf", LastLines: []string{"Bors whispers: " + secret}},
	}
	var log world.LogWriter
	for k := world.MsgGame; k <= world.MsgOwn; k++ {
		line := "a public line"
		if !k.Public() {
			line = "a line of kind " + string(rune('0'+k)) + " " + secret
		}
		log.Add(line, k)
	}
	v.Log, v.Said = log.Log(), uint64(log.Len())
	chunks := encode(t, []world.View{v}, 1)

	own := Timeline(chunks, false)
	if got := own[len(own)-1].View; len(got.Log.Lines()) != len(v.Log.Lines()) || got.Self.Options.Muted == nil || got.Self.Unread != 3 || len(got.Watchers) != 2 {
		t.Fatalf("the knight's own replay lost what is its own: %+v", got)
	}
	ms := Timeline(chunks, true)
	got := ms[len(ms)-1].View
	if s := strings.Join(append(append(got.Log.Lines(), got.Watchers...), got.Self.Options.Muted...), "|"); strings.Contains(s, secret) {
		t.Errorf("a public view holds a private word: %q", s)
	}
	if !slices.Equal(got.Log.Lines(), []string{"a public line"}) || got.Said != 1 {
		t.Errorf("a public view's log: %q (said %d), want the public line only", got.Log.Lines(), got.Said)
	}
	if !slices.Equal(got.Watchers, []string{"2 spectators"}) {
		t.Errorf("a public view's spectators: %q, want a count", got.Watchers)
	}
	if got.Self.Options.PrivateReplays || got.Self.Options.NoSpectators || got.Self.Options.Theme != "" || got.Self.Options.Plain ||
		got.Self.Unread != 0 || got.Self.ID != "" || !got.Self.Born.IsZero() {
		t.Errorf("a public view's self: %+v", got.Self)
	}
	if got.Invites != nil || got.Asks != nil || got.Ended != "" {
		t.Errorf("a public view's invitations: %q %q", got.Invites, got.Asks)
	}
	if got.Dead == nil || got.Dead.Killer != "a Wolf" || got.Dead.LastLines != nil || v.Dead.LastLines == nil {
		t.Errorf("a public view's tombstone: %+v (the original's last lines %q)", got.Dead, v.Dead.LastLines)
	}
	if got.Self.Name != "Cador" || got.Self.Hits != 9 || !got.Self.Away {
		t.Errorf("a public view lost what anyone saw: %+v", got.Self)
	}
}

// fill sets every exported field of v, a settable value, to something that is not its
// zero: the words hold secret, so a test can look for it.
func fill(v reflect.Value, secret string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(secret)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(3)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), secret)
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), secret)
		v.Set(p)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 6, 1, 13, 0, 0, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), secret)
			}
		}
	}
}

// Every field decided hidden (publicView, publicSelf), set whole, every field of it
// (the options, each one), comes out of a public replay empty, and out of the view a
// spectator is sent (world.View.Public). A field added to the options, or a field decided
// hidden, is held by this test without a word more.
func TestEveryHiddenFieldIsEmptyInAPublicView(t *testing.T) {
	const secret = "SECRET"
	v := world.View{Turn: 7, Self: world.Self{Name: "Cador", Level: 3, Hits: 9, MaxHits: 12}}
	for typ, decided := range map[reflect.Type]map[string]string{reflect.TypeFor[world.View](): publicView, reflect.TypeFor[world.Self](): publicSelf} {
		target := reflect.ValueOf(&v).Elem()
		if typ == reflect.TypeFor[world.Self]() {
			target = target.FieldByName("Self")
		}
		for name, d := range decided {
			if d == "hidden" {
				fill(target.FieldByName(name), secret)
			}
		}
	}
	if v.Self.Options.Colour == "" || !v.Self.Options.HideKeys || v.Self.ID == "" || v.Ended == "" {
		t.Fatalf("the hidden fields were not all set: %+v", v)
	}
	ms := Timeline(encode(t, []world.View{v}, 1), true)
	for what, got := range map[string]world.View{"a public replay": ms[len(ms)-1].View, "a spectator's view": v.Public()} {
		for typ, decided := range map[reflect.Type]map[string]string{reflect.TypeFor[world.View](): publicView, reflect.TypeFor[world.Self](): publicSelf} {
			value := reflect.ValueOf(got)
			if typ == reflect.TypeFor[world.Self]() {
				value = value.FieldByName("Self")
			}
			for name, d := range decided {
				if f := value.FieldByName(name); d == "hidden" && !f.IsZero() {
					t.Errorf("%s holds %s.%s: %+v", what, typ.Name(), name, f.Interface())
				}
			}
		}
	}
}
