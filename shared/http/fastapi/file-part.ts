/**
 * FastAPI parity: a form's file part, as Starlette 1.7.0 hands it to FastAPI
 * (`starlette/datastructures.py`, `UploadFile`: filename, content type, bytes).
 */

/** A part sent with a `filename` parameter: Starlette's UploadFile. */
export class FilePart {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Buffer;

  constructor(filename: string, contentType: string, content: Buffer) {
    this.filename = filename;
    this.contentType = contentType;
    this.content = content;
  }

  get size(): number {
    return this.content.byteLength;
  }
}

/** A form field's value: text, or a file. */
export type FormValue = string | FilePart;
