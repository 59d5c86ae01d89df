package main

import (
	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// The SSH algorithms the server offers, chosen here rather than left to the library's
// defaults, which include key exchanges on NIST curves and with SHA-1, and MACs with
// SHA-1 or that MAC the plain text (encrypt-and-MAC) rather than the cipher text, all of
// which ssh-audit fails or warns on. What stays: a post-quantum hybrid and curve25519 key
// exchange, with a 4096-bit Diffie-Hellman group for clients without curve25519; AEAD
// ciphers, and AES-CTR with encrypt-then-MAC SHA-2. OpenSSH from 7.4 and current PuTTY
// and Dropbear clients negotiate them (TestClientsConnect runs ssh, plink and dbclient). The host key is ed25519
// (keys.LoadOrCreateHostKey). Players' keys may be ed25519, ECDSA or RSA with SHA-2
// signatures; RSA signatures with SHA-1 (ssh-rsa) are refused, as OpenSSH has refused
// them by default since 8.8.
var (
	kexAlgorithms    = []string{gossh.KeyExchangeMLKEM768X25519, gossh.KeyExchangeCurve25519, gossh.KeyExchangeDH16SHA512}
	cipherAlgorithms = []string{gossh.CipherChaCha20Poly1305, gossh.CipherAES256GCM, gossh.CipherAES128GCM,
		gossh.CipherAES256CTR, gossh.CipherAES192CTR, gossh.CipherAES128CTR}
	macAlgorithms     = []string{gossh.HMACSHA256ETM, gossh.HMACSHA512ETM}
	userKeyAlgorithms = []string{gossh.KeyAlgoED25519, gossh.KeyAlgoSKED25519, gossh.KeyAlgoECDSA256, gossh.KeyAlgoECDSA384,
		gossh.KeyAlgoECDSA521, gossh.KeyAlgoSKECDSA256, gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256}
)

// serverConfig is the SSH server's base configuration for one connection: the
// algorithms above, and the count of failed public-key attempts. With every key welcome,
// a failure is a key offered whose signature does not verify (such as a client offering
// someone else's public key).
func (s *server) serverConfig(ssh.Context) *gossh.ServerConfig {
	return &gossh.ServerConfig{
		Config:                  gossh.Config{KeyExchanges: kexAlgorithms, Ciphers: cipherAlgorithms, MACs: macAlgorithms},
		PublicKeyAuthAlgorithms: userKeyAlgorithms,
		AuthLogCallback: func(conn gossh.ConnMetadata, method string, err error) {
			if method == "publickey" && err != nil {
				s.obs.authFailures.Inc()
				s.log.Info("auth failure", "addr", conn.RemoteAddr().String(), "method", method, "err", err)
			}
		},
	}
}
