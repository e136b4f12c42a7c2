import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/**
 * A real OIDC issuer on loopback with its own keys: discovery document and JWKS over HTTP.
 * `mode` switches the JWKS endpoint between serving, failing (500), hanging and an unsupported key type.
 */
export class TestIssuer {
  url = '';
  mode: 'ok' | 'down' | 'hang' | 'unsupported' = 'ok';
  jwksFetches = 0;
  /** JWKS requests in `hang` mode whose connection the client closed (it gave up waiting). */
  hungRequestsAbandoned = 0;
  private server?: Server;
  private keys: Array<{ kid: string; privateKey: CryptoKey; jwk: JWK }> = [];

  async start(): Promise<this> {
    await this.rotate();
    this.server = createServer((req, res) => {
      if (req.url === '/.well-known/openid-configuration') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ issuer: this.url, jwks_uri: `${this.url}/jwks` }));
        return;
      }
      if (req.url === '/jwks') {
        this.jwksFetches++;
        if (this.mode === 'hang') {
          // Never answers: only the client's own timeout ends the request.
          res.on('close', () => this.hungRequestsAbandoned++);
          return;
        }
        if (this.mode === 'down') {
          res.statusCode = 500;
          res.end('down');
          return;
        }
        res.setHeader('content-type', 'application/json');
        const keys =
          this.mode === 'unsupported'
            ? [{ kty: 'oct', kid: this.keys[0].kid, k: 'c2VjcmV0' }]
            : this.keys.map((k) => k.jwk);
        res.end(JSON.stringify({ keys }));
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    const addr = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${addr.port}`;
    return this;
  }

  /** A new signing key that the JWKS serves from now on (the old ones stay listed). */
  async rotate(): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const kid = `kid-${this.keys.length + 1}`;
    this.keys.unshift({ kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } });
    return kid;
  }

  async sign(
    claims: JWTPayload,
    opts: { audience?: string; expiresIn?: string | number; issuer?: string; kid?: string } = {},
  ): Promise<string> {
    const key = opts.kid ? this.keys.find((k) => k.kid === opts.kid)! : this.keys[0];
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: key.kid })
      .setIssuer(opts.issuer ?? this.url)
      .setAudience(opts.audience ?? 'svc-api')
      .setIssuedAt()
      .setExpirationTime(opts.expiresIn ?? '5m')
      .sign(key.privateKey);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}
