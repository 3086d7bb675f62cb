import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * `verify(secret, body, signature)` from @octokit/webhooks-methods. The package is
 * ESM-only and Jest's CommonJS resolver cannot load it, so it runs in a real Node
 * child process (bounded by a timeout) instead.
 */
export function octokitVerify(secret: string, body: string, signature: string): Promise<boolean> {
  const script = `
    import { verify } from '@octokit/webhooks-methods';
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const { secret, body, signature } = JSON.parse(input);
    process.stdout.write(JSON.stringify(await verify(secret, body, signature)));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: join(__dirname, '..', '..'),
      timeout: 15_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`octokit verify exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as boolean);
    });
    child.stdin.end(JSON.stringify({ secret, body, signature }));
  });
}
