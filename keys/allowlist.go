package keys

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/crypto/ssh"
)

// maxLineBytes bounds one line of an allow-list file; OpenSSH itself allows
// lines of up to 16 KiB, and the largest RSA keys fit comfortably.
const maxLineBytes = 64 * 1024

// Errors a LineError may wrap, so callers and tests can tell the causes apart.
var (
	// ErrUnknownKeyType is wrapped when a line names no key type this package
	// knows, or names a certificate type (list the key itself instead).
	ErrUnknownKeyType = errors.New("unknown key type")

	// ErrMalformedLine is wrapped when a line cannot be split into options,
	// key type, key data and comment: an unterminated quote, or a key type
	// with no key data after it.
	ErrMalformedLine = errors.New("malformed line")

	// ErrBadKeyData is wrapped when the key data is not base64, does not
	// decode to a public key, or encodes a key of another type than the line
	// declares.
	ErrBadKeyData = errors.New("bad key data")

	// ErrDSAKey is wrapped when a line lists a DSA (ssh-dss) key. The server
	// takes no DSA signatures at login (OpenSSH has dropped DSA too), so the key
	// could never log in as an admin: the line is refused with a reason rather
	// than loaded to no effect.
	ErrDSAKey = errors.New("DSA key refused")
)

// dsaKeyType is the type a DSA key's line names.
const dsaKeyType = "ssh-dss"

// keyTypes are the plain public key types an allow-list line may name (a DSA key's
// line is then refused, with ErrDSAKey); x/crypto's parser takes certificates too, which
// are refused.
var keyTypes = map[string]bool{
	ssh.KeyAlgoRSA:        true,
	dsaKeyType:            true,
	ssh.KeyAlgoECDSA256:   true,
	ssh.KeyAlgoECDSA384:   true,
	ssh.KeyAlgoECDSA521:   true,
	ssh.KeyAlgoSKECDSA256: true,
	ssh.KeyAlgoED25519:    true,
	ssh.KeyAlgoSKED25519:  true,
	ssh.KeyAlgoMLDSA44:    true,
	ssh.KeyAlgoMLDSA65:    true,
	ssh.KeyAlgoMLDSA87:    true,
}

// LineError is a problem with one line of an allow-list file. The line is
// skipped; the other lines still load.
type LineError struct {
	// Line is the 1-based line number in the file.
	Line int
	// Err says what is wrong with the line.
	Err error
}

// Error reports the line number and the problem, as "line 3: ...".
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the underlying problem.
func (e *LineError) Unwrap() error { return e.Err }

// AllowList is a set of public keys read from a file in OpenSSH
// authorized_keys format, used to decide who is an admin. Keys are compared by
// their wire encoding, so the options and comments on a line do not matter. A
// nil *AllowList is valid and contains nothing. An AllowList is not modified
// after it is parsed, so it is safe for concurrent use.
type AllowList struct {
	byKey   map[string]struct{} // wire encoding of each key
	entries []Entry             // in file order, without duplicates
}

// Entry is one key of an allow-list, as the admin command admins lists it.
type Entry struct {
	Fingerprint string `json:"fingerprint"`
	Type        string `json:"type"`
	// Comment is the rest of the key's line, after the key data; it may be empty.
	Comment string `json:"comment,omitempty"`
}

// ParseAllowList reads an allow-list in authorized_keys format: one key per
// line as `[options] type base64 [comment]`, with blank lines and lines
// starting with '#' ignored. Every line that cannot be used yields a
// *LineError naming its line number; the good lines still load. The returned
// list is never nil. A read error from r is reported as a final LineError and
// ends the parse with what was read so far.
func ParseAllowList(r io.Reader) (*AllowList, []error) {
	al := &AllowList{byKey: make(map[string]struct{})}
	var errs []error
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			errs = append(errs, &LineError{Line: n, Err: readError{err}})
			break
		}
		if errors.Is(err, io.EOF) && line == "" && !tooLong {
			break
		}
		switch pk, comment, perr := parseAllowLine(line); {
		case tooLong:
			errs = append(errs, &LineError{Line: n, Err: fmt.Errorf("%w: longer than %d bytes", ErrMalformedLine, maxLineBytes)})
		case perr != nil:
			errs = append(errs, &LineError{Line: n, Err: perr})
		case pk != nil:
			al.add(pk, comment)
		}
		if err != nil { // io.EOF after a last line with no newline
			break
		}
	}
	return al, errs
}

// readLine reads one line without its newline. A line longer than
// maxLineBytes is read to its end and dropped, with tooLong set. At the end
// of the input it returns io.EOF together with any last unterminated line.
func readLine(br *bufio.Reader) (line string, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			buf = append(buf, chunk...)
			if len(buf) > maxLineBytes+1 { // +1 for the newline
				tooLong, buf = true, nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return string(buf), tooLong, err
		}
		return strings.TrimSuffix(string(buf), "\n"), tooLong, nil
	}
}

// LoadAllowList reads the allow-list file at path. A missing file is an empty
// list and no error, so a server without admins needs no file. Problems with
// single lines come back in lineErrs (see ParseAllowList); err is set only when
// the file exists but cannot be read, and then the list is nil.
func LoadAllowList(path string) (al *AllowList, lineErrs []error, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &AllowList{byKey: make(map[string]struct{})}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open allow-list %s: %w", path, err)
	}
	defer f.Close()
	al, lineErrs = ParseAllowList(f)
	// A read failure (a directory, an I/O error) is a failure of the file,
	// not of one line: report it as an error and load nothing.
	for _, le := range lineErrs {
		var lineErr *LineError
		if errors.As(le, &lineErr) && isReadError(lineErr.Err) {
			return nil, nil, fmt.Errorf("read allow-list %s: %w", path, le)
		}
	}
	return al, lineErrs, nil
}

// readError marks a LineError caused by the reader rather than by the line.
type readError struct{ err error }

func (e readError) Error() string { return "read: " + e.err.Error() }
func (e readError) Unwrap() error { return e.err }

func isReadError(err error) bool {
	var re readError
	return errors.As(err, &re)
}

// Contains reports whether pk is on the list. A nil list or key contains nothing.
func (al *AllowList) Contains(pk ssh.PublicKey) bool {
	if al == nil || pk == nil {
		return false
	}
	_, ok := al.byKey[string(pk.Marshal())]
	return ok
}

// Len is the number of distinct keys on the list.
func (al *AllowList) Len() int {
	if al == nil {
		return 0
	}
	return len(al.entries)
}

// Fingerprints lists the fingerprints of the keys on the list in the order
// they first appear in the file. The caller may modify the returned slice.
func (al *AllowList) Fingerprints() []string {
	if al == nil {
		return nil
	}
	fps := make([]string, len(al.entries))
	for i, e := range al.entries {
		fps[i] = e.Fingerprint
	}
	return fps
}

// Entries lists the keys on the list, with their types and comments, in the order they
// first appear in the file. The caller may modify the returned slice.
func (al *AllowList) Entries() []Entry {
	if al == nil {
		return nil
	}
	return append([]Entry(nil), al.entries...)
}

// add puts pk on the list; a key listed twice keeps its first line's comment.
func (al *AllowList) add(pk ssh.PublicKey, comment string) {
	k := string(pk.Marshal())
	if _, dup := al.byKey[k]; dup {
		return
	}
	al.byKey[k] = struct{}{}
	al.entries = append(al.entries, Entry{Fingerprint: Fingerprint(pk), Type: pk.Type(), Comment: comment})
}

// parseAllowLine parses one authorized_keys line with x/crypto's parser (options, the
// declared type matched against the key's, the comment). It returns a nil key and no
// error for a blank or comment line; the comment comes back with the key.
func parseAllowLine(line string) (ssh.PublicKey, string, error) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return nil, "", nil
	}
	pk, comment, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
	switch {
	case err != nil:
		return nil, "", whyNot(line, err)
	case pk.Type() == dsaKeyType:
		return nil, "", dsaRefused()
	case !keyTypes[pk.Type()]:
		return nil, "", fmt.Errorf("%w %q: list the key itself, not a certificate", ErrUnknownKeyType, pk.Type())
	}
	return pk, comment, nil
}

func dsaRefused() error {
	return fmt.Errorf("%w: %s keys cannot log in to this server; list an ed25519 key instead", ErrDSAKey, dsaKeyType)
}

// whyNot says, for the operator, why x/crypto found no key on a line (its error says
// only that): the line's words are looked at for the key type and what follows it.
func whyNot(line string, err error) error {
	if unterminatedQuote(line) {
		return fmt.Errorf("%w: unterminated quote in options", ErrMalformedLine)
	}
	cause := errors.Unwrap(err) // x/crypto's "no key found" wraps why the line's key did not parse
	if cause == nil {
		cause = err
	}
	words := strings.Fields(line)
	for i, w := range words {
		switch {
		case w == dsaKeyType:
			return dsaRefused()
		case strings.HasSuffix(w, "-cert-v01@openssh.com"):
			return fmt.Errorf("%w %q: list the key itself, not a certificate", ErrUnknownKeyType, w)
		case keyTypes[w] && i == len(words)-1:
			return fmt.Errorf("%w: no key data after %s", ErrMalformedLine, w)
		case keyTypes[w]:
			return fmt.Errorf("%w: %s key: %v", ErrBadKeyData, w, cause)
		}
	}
	if len(words) == 1 {
		return fmt.Errorf("%w: %q is neither a key type nor followed by one", ErrMalformedLine, words[0])
	}
	return fmt.Errorf("%w: no key type this server knows in %q", ErrUnknownKeyType, strings.Join(words[:2], " "))
}

// unterminatedQuote tells whether the line's double quotes (as in the options field,
// `from="a, b"`; a backslash escapes one) leave one open.
func unterminatedQuote(line string) bool {
	open := false
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '"':
			open = !open
		}
	}
	return open
}
