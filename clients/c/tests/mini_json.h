/*
 * Just enough JSON for Tests/Vectors/manifest.json: walks a document and reports every string
 * value with the key it belongs to and the keys of its enclosing containers. No allocation.
 */
#ifndef MINI_JSON_H
#define MINI_JSON_H

#include <stdio.h>
#include <string.h>

#define MJ_MAX_DEPTH 32
#define MJ_MAX_TEXT 8192

typedef struct mj_path {
    int depth;                          /* containers open around the value */
    const char *keys[MJ_MAX_DEPTH];     /* key of each open container ("" inside arrays) */
} mj_path;

/* Called for each string value, and with value NULL when a container closes (key = its key). */
typedef void (*mj_visit)(void *ctx, const mj_path *path, const char *key, const char *value);

/* Reads a JSON string at *p (after the opening quote) into out; returns 0 or -1. Escapes other
 * than \" \\ \/ \n \t are kept verbatim (the manifest needs none of them decoded). */
static int mj_string(const char **p, char *out, size_t cap) {
    size_t n = 0;
    const char *s = *p;
    while (*s && *s != '"') {
        char c = *s++;
        if (c == '\\' && *s) {
            char e = *s++;
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
        }
        if (n + 1 < cap) out[n++] = c;
    }
    if (*s != '"') return -1;
    out[n] = '\0';
    *p = s + 1;
    return 0;
}

/* Walks the document; returns 0, or -1 on malformed input. */
static int mj_walk(const char *text, mj_visit visit, void *ctx) {
    static char keys[MJ_MAX_DEPTH][128];
    static char pending[128], value[MJ_MAX_TEXT];
    mj_path path = { 0, { 0 } };
    int is_object[MJ_MAX_DEPTH] = { 0 };
    int expect_key = 0;
    pending[0] = '\0';
    for (const char *p = text; *p;) {
        char c = *p++;
        if (c == '{' || c == '[') {
            if (path.depth == MJ_MAX_DEPTH) return -1;
            snprintf(keys[path.depth], sizeof keys[0], "%s", pending);
            path.keys[path.depth] = keys[path.depth];
            is_object[path.depth] = c == '{';
            path.depth++;
            expect_key = c == '{';
            pending[0] = '\0';
        } else if (c == '}' || c == ']') {
            if (path.depth == 0) return -1;
            path.depth--;
            visit(ctx, &path, path.keys[path.depth], NULL);
            expect_key = 0;
        } else if (c == ',') {
            expect_key = path.depth > 0 && is_object[path.depth - 1];
            pending[0] = '\0';
        } else if (c == '"') {
            if (expect_key) {
                if (mj_string(&p, pending, sizeof pending) != 0) return -1;
                expect_key = 0;
            } else {
                if (mj_string(&p, value, sizeof value) != 0) return -1;
                visit(ctx, &path, pending, value);
            }
        }
    }
    return path.depth == 0 ? 0 : -1;
}

#endif
