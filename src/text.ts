// Characters no id, code or name may hold, whoever validates it (outcomes, kit names). C0 and C1
// controls and DEL break log lines and terminal output; bidi controls (U+202A–U+202E, U+2066–U+2069)
// make an id display as another one; a lone surrogate is not valid UTF-16, so it cannot be encoded
// as UTF-8 faithfully and two different ids could reach Redis as the same bytes.
// The `u` flag makes the surrogate range match only unpaired halves: a paired emoji is one code point.
// eslint-disable-next-line no-control-regex
export const unsafeCharacters = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;

export const unsafeCharactersReason = 'must not contain control characters (C0, C1, bidi controls or lone surrogates)';
