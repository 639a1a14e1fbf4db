/* The wide-character stdio picolibc 1.8 declares but does not define, and
 * libstdc++'s wide streams (std::wcout, std::wifstream, ...) call: one
 * wide character is read and written as its multibyte sequence in the
 * current locale (one byte in the "C" locale programs start in), through
 * the library's own mbrtowc and wcrtomb. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

wint_t fgetwc(FILE *f) {
    mbstate_t state;
    memset(&state, 0, sizeof(state));
    for (int n = 0; n < MB_LEN_MAX; ++n) {
        const int c = getc(f);
        if (c == EOF) return WEOF;
        const char byte = (char)c;
        wchar_t wc;
        const size_t r = mbrtowc(&wc, &byte, 1, &state);
        if (r == (size_t)-2) continue;    /* more bytes to come */
        if (r == (size_t)-1) return WEOF; /* errno is EILSEQ */
        return (wint_t)wc;
    }
    errno = EILSEQ;
    return WEOF;
}

wint_t fputwc(wchar_t wc, FILE *f) {
    char bytes[MB_LEN_MAX];
    mbstate_t state;
    memset(&state, 0, sizeof(state));
    const size_t n = wcrtomb(bytes, wc, &state);
    if (n == (size_t)-1) return WEOF; /* errno is EILSEQ */
    return fwrite(bytes, 1, n, f) == n ? (wint_t)wc : WEOF;
}

/* <wchar.h> also defines these as macros: the parentheses define the
 * functions, for callers that take their address or #undef them. */
wint_t(getwc)(FILE *f) { return fgetwc(f); }
wint_t(putwc)(wchar_t wc, FILE *f) { return fputwc(wc, f); }
wint_t(getwchar)(void) { return fgetwc(stdin); }
wint_t(putwchar)(wchar_t wc) { return fputwc(wc, stdout); }

/* Only a character that is a single byte can be pushed back (stdio keeps
 * one byte of push-back). */
wint_t ungetwc(wint_t wc, FILE *f) {
    const int byte = wc == WEOF ? EOF : wctob(wc);
    return byte != EOF && ungetc(byte, f) != EOF ? wc : WEOF;
}

/* strftime on the format narrowed to bytes, widened back: 0 (as strftime)
 * when the result does not fit, or the format has a character that is
 * not a single byte or is longer than 255 characters. */
size_t wcsftime(wchar_t *restrict out, size_t max, const wchar_t *restrict format,
                const struct tm *restrict tm) {
    char narrow[256], text[512];
    size_t n = 0;
    for (; format[n]; ++n) {
        const int byte = wctob(format[n]);
        if (byte == EOF || n + 1 >= sizeof(narrow)) return 0;
        narrow[n] = (char)byte;
    }
    narrow[n] = '\0';
    const size_t len = strftime(text, max < sizeof(text) ? max : sizeof(text), narrow, tm);
    if (len == 0 && max > 0) {
        out[0] = L'\0';
        return 0;
    }
    for (size_t i = 0; i <= len; ++i)
        out[i] = btowc((unsigned char)text[i]);
    return len;
}
