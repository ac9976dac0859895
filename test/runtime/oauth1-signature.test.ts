// OAuth 1.0a signing (RFC 5849 §3.4–3.6) checked against published example signatures, so that the stand-in's
// verification in microblog.test.ts is not the only judge of the runtime's signing.
import { describe, expect, it } from 'vitest';

import {
  authorizationHeader,
  parseAuthorizationHeader,
  percentEncode,
  signRequest,
  signatureBaseString,
} from '../../templates/runtime/oauth1/signature.js';

describe('OAuth 1.0a HMAC-SHA1 signatures', () => {
  it("reproduces the network's documented example signature (POST with a form body and a query)", () => {
    const params = signRequest({
      method: 'POST',
      url: new URL('https://api.twitter.com/1.1/statuses/update.json?include_entities=true'),
      body: new URLSearchParams({ status: 'Hello Ladies + Gentlemen, a signed OAuth request!' }),
      consumerKey: 'xvz1evFS4wEEPTGEFPHBog',
      consumerSecret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw',
      token: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
      tokenSecret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
      nonce: 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg',
      timestamp: '1318622958',
    });
    expect(params.oauth_signature).toBe('hCtSmYh+iHYCEqBWrE7C7hYmtUk=');
  });

  it('reproduces the OAuth Core 1.0 appendix example signature (GET with a query)', () => {
    const params = signRequest({
      method: 'GET',
      url: new URL('http://photos.example.net/photos?file=vacation.jpg&size=original'),
      consumerKey: 'dpf43f3p2l4k3l03',
      consumerSecret: 'kd94hf93k423kf44',
      token: 'nnch734d00sl2jdk',
      tokenSecret: 'pfkkdhi9sl3r4s00',
      nonce: 'kllo9940pd9333jh',
      timestamp: '1191242096',
    });
    expect(params.oauth_signature).toBe('tR3+Ty81lMeYAr/Fid0kMTYa/WM=');
  });

  it('builds the base string with sorted, encoded parameters and the base string URI', () => {
    const base = signatureBaseString('get', new URL('HTTP://Example.COM:80/r%20v/X?id=123'), [
      ['b5', '=%3D'],
      ['a3', 'a'],
      ['a3', '2 q'],
      ['c@', ''],
    ]);
    expect(base).toBe('GET&http%3A%2F%2Fexample.com%2Fr%2520v%2FX&a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D');
  });

  it('percent-encodes everything but unreserved characters, in upper-case hex', () => {
    expect(percentEncode("Ladies + Gentlemen!*'()~._-")).toBe('Ladies%20%2B%20Gentlemen%21%2A%27%28%29~._-');
    expect(percentEncode('☃')).toBe('%E2%98%83');
  });

  it('writes an Authorization header that parses back to the same parameters', () => {
    const params = { oauth_consumer_key: 'key', oauth_callback: 'http://127.0.0.1:3000/auth/callback/microblog', oauth_signature: 'a+b/c=' };
    const header = authorizationHeader(params);
    expect(header).toBe('OAuth oauth_consumer_key="key", oauth_callback="http%3A%2F%2F127.0.0.1%3A3000%2Fauth%2Fcallback%2Fmicroblog", oauth_signature="a%2Bb%2Fc%3D"');
    expect(parseAuthorizationHeader(header)).toEqual(params);
  });
});
