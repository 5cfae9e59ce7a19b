import type { ApiResponse, TestApp } from '../support/harness.ts';

/** A multipart/form-data body as the SDKs send it: text parts, then one file part. */
export function multipart(parts: { name?: string; mapping?: unknown; file?: { filename: string; content: string | Buffer; type?: string } }, boundary = '----spyglass-test-boundary') {
  const chunks: Buffer[] = [];
  if (parts.name !== undefined) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${parts.name}\r\n`));
  }
  if (parts.mapping !== undefined) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="mapping"\r\n\r\n${JSON.stringify(parts.mapping)}\r\n`));
  }
  if (parts.file) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${parts.file.filename}"\r\nContent-Type: ${parts.file.type ?? 'application/octet-stream'}\r\n\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(parts.file.content) ? parts.file.content : Buffer.from(parts.file.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function upload(t: TestApp, key: string, url: string, parts: Parameters<typeof multipart>[0]): Promise<ApiResponse> {
  const { body, contentType } = multipart(parts);
  return t.request('POST', url, { token: key, rawBody: body, headers: { 'content-type': contentType } });
}
