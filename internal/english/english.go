// Package english writes the small pieces of English the game's sentences are made of:
// articles for monster and item names, capitals, counts and lists. World and app both
// build sentences from names, and both use this package, so "an Illusionist" and "armour
// +1" read the same in the battle log, the message log and screen-reader mode. It imports
// only the standard library and knows nothing of the game.
package english

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// noArticle are the first words of names that take no indefinite article: mass nouns and
// plurals ("You find armour +1!", "You find boots of speed!").
var noArticle = map[string]bool{
	"armour": true, "armor": true, "boots": true, "arrows": true, "gold": true, "silver": true,
	"electrum": true, "platinum": true, "jewelry": true, "jewellery": true, "treasure": true,
}

// soundsLikeVowel and soundsLikeConsonant are the beginnings whose article the spelling
// does not tell: "an hour", but "a unicorn", "a one-eyed giant", "a European".
var (
	soundsLikeVowel     = []string{"hour", "honest", "honour", "honor", "heir"}
	soundsLikeConsonant = []string{"uni", "use", "usu", "uti", "eu", "ewe", "one", "once"}
)

// A is name with its indefinite article: "a Troll", "an Illusionist", "an Umber Hulk",
// "a unicorn"; a name that brings its own article ("the Programmer") and a mass noun or
// plural ("armour +1", "boots of speed") come back as they are. An empty name is
// "something", so a missing name never makes a broken sentence.
func A(name string) string {
	if name == "" {
		return "something"
	}
	lower := strings.ToLower(name)
	first, _, _ := strings.Cut(lower, " ")
	if first == "the" || first == "a" || first == "an" || first == "some" || noArticle[first] {
		return name
	}
	if an(lower) {
		return "an " + name
	}
	return "a " + name
}

// an reports whether a lowercase word is said with "an".
func an(lower string) bool {
	for _, p := range soundsLikeVowel {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	for _, p := range soundsLikeConsonant {
		if strings.HasPrefix(lower, p) {
			return false
		}
	}
	r, _ := utf8.DecodeRuneInString(lower)
	return strings.ContainsRune("aeiou", r)
}

// The is name with the definite article, or a name that brings its own: "the Troll",
// "the Programmer".
func The(name string) string {
	if name == "" {
		return "something"
	}
	if first, _, _ := strings.Cut(strings.ToLower(name), " "); first == "the" {
		return name
	}
	return "the " + name
}

// Capital is s with its first letter upper case; the rest is left alone.
func Capital(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// Count is n of a thing: "1 hit", "12 hits"; many is the plural when it is not one+"s"
// ("1 pair of boots", "2 pairs of boots").
func Count(n int, one string, many ...string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + one
	}
	if len(many) > 0 {
		return strconv.Itoa(n) + " " + many[0]
	}
	return strconv.Itoa(n) + " " + one + "s"
}

// List joins words as a sentence lists them: "a", "a and b", "a, b and c".
func List(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
