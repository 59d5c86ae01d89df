package world

import (
	"errors"
	"math/rand/v2"
	"strings"
	"unicode"
)

// MaxNameLen bounds a knight's name in characters.
const MaxNameLen = 20

// ErrBadName is returned for a name that is empty or uses characters outside the allowed set.
var ErrBadName = errors.New("a name is 1 to 20 letters, digits, spaces, apostrophes or hyphens, starting with a letter")

// CleanName trims and checks a player's chosen name. Only ASCII letters, digits, single
// spaces, apostrophes and hyphens are allowed, so a name can never carry escape codes or
// look-alike characters from other scripts.
func CleanName(s string) (string, error) {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" || len(s) > MaxNameLen {
		return "", ErrBadName
	}
	for i, r := range s {
		ok := r < unicode.MaxASCII && (unicode.IsLetter(r) || (i > 0 && (unicode.IsDigit(r) || r == ' ' || r == '\'' || r == '-')))
		if !ok {
			return "", ErrBadName
		}
	}
	return s, nil
}

var knightNames = [...]string{
	"Gawain", "Percival", "Lancelot", "Bors", "Tristan", "Galahad", "Bedivere", "Gareth",
	"Lamorak", "Kay", "Ywain", "Dagonet", "Pelleas", "Lucan", "Gaheris", "Agravain",
	"Safir", "Palamedes", "Ector", "Lionel", "Tor", "Caradoc", "Erec", "Geraint",
}

var epithets = [...]string{"Bold", "Brave", "Just", "Red", "Grey", "Young", "Tall", "Wise", "Swift", "Stout"}

// RandomName offers a knight's name such as "Gawain the Bold", always a valid name.
func RandomName(r *rand.Rand) string {
	name := knightNames[r.IntN(len(knightNames))]
	if full := name + " the " + epithets[r.IntN(len(epithets))]; len(full) <= MaxNameLen {
		return full
	}
	return "Sir " + name
}
