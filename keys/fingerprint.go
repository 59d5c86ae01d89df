// Package keys owns SSH key handling for the server: the fingerprints that
// identify players, the admin allow-list read from an authorized_keys file, and
// the server's own host key on disk.
//
// It must not know about the game, the store or the terminal: it imports only
// the standard library and golang.org/x/crypto/ssh, and it never decides what a
// key is allowed to do beyond answering whether the allow-list holds it.
package keys

import "golang.org/x/crypto/ssh"

// Fingerprint returns the SHA-256 fingerprint of pk exactly as `ssh-keygen -l`
// prints it: "SHA256:" followed by the unpadded standard base64 of the SHA-256
// of the key's wire encoding. It is the identity under which a player's
// adventurer is stored. A nil key has the empty fingerprint.
func Fingerprint(pk ssh.PublicKey) string {
	if pk == nil {
		return ""
	}
	return ssh.FingerprintSHA256(pk)
}
