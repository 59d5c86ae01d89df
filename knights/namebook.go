package knights

import (
	"sync"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// NameBook keeps knights' names unique across knights (DESIGN §12, "Names"): the owner
// of every name, as world.NameKey folds it, read once from the knights' records and then
// kept up to date by the name prompt, which claims a name before the knight joins.
// Claiming at the prompt also settles two players who pick the same name at the same
// moment: the second is refused. Records that cannot be read leave the book with the
// names claimed since the start, and they are read again next time. It is safe for
// concurrent use.
type NameBook struct {
	read  func() ([]KnightName, error)
	onErr func(error)

	mu     sync.Mutex
	loaded bool
	owner  map[string]string // NameKey → knight id
	name   map[string]string // knight id → the name it last claimed, as typed, for the log
}

// NewNameBook is a book of the names read reads (Records.KnightNames); onErr is told
// when they cannot be read.
func NewNameBook(read func() ([]KnightName, error), onErr func(error)) *NameBook {
	return &NameBook{read: read, onErr: onErr, owner: map[string]string{}, name: map[string]string{}}
}

// load reads the names kept, once they can be read; the caller holds mu.
func (b *NameBook) load() {
	if b.loaded {
		return
	}
	names, err := b.read()
	if err != nil {
		b.onErr(err)
		return
	}
	for _, n := range names {
		if k := world.NameKey(n.Name); b.owner[k] == "" {
			b.owner[k] = n.Knight
		}
		if b.name[n.Knight] == "" {
			b.name[n.Knight] = n.Name
		}
	}
	b.loaded = true
}

// Taken reports whether a knight other than id owns the name.
func (b *NameBook) Taken(name, id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.load()
	owner := b.owner[world.NameKey(name)]
	return owner != "" && owner != id
}

// Claim reserves the name for the knight id, unless another knight owns it.
func (b *NameBook) Claim(name, id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.load()
	k := world.NameKey(name)
	if owner := b.owner[k]; owner != "" && owner != id {
		return false
	}
	b.owner[k] = id
	b.name[id] = name
	return true
}

// Rename makes name the only name of the knight id (an admin's rename), unless another
// knight owns it; the knight's other names are let go.
func (b *NameBook) Rename(name, id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.load()
	k := world.NameKey(name)
	if owner := b.owner[k]; owner != "" && owner != id {
		return false
	}
	for key, owner := range b.owner {
		if owner == id {
			delete(b.owner, key)
		}
	}
	b.owner[k] = id
	b.name[id] = name
	return true
}

// NameOf returns the name the knight id last claimed, "" for none yet.
func (b *NameBook) NameOf(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.load()
	return b.name[id]
}

// Forget lets go of every name the knight id owns: a guest's, when it leaves, so that
// guests' names neither pile up nor stay taken.
func (b *NameBook) Forget(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.load()
	for k, owner := range b.owner {
		if owner == id {
			delete(b.owner, k)
		}
	}
	delete(b.name, id)
}
