/* The C face of toml++ (Debian's libtomlplusplus-dev, header-only C++), so
 * Swift can read a TOML document with the place of every key: a parse into a
 * flat list of nodes, each naming the table that holds it. */
#ifndef MTL_CTOML_H
#define MTL_CTOML_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define MTL_NOEXCEPT noexcept
extern "C" {
#else
#define MTL_NOEXCEPT
#endif

/* A parsed document: its nodes, owned by it. */
typedef struct mtl_toml mtl_toml;

typedef enum mtl_toml_kind {
    MTL_TOML_TABLE,
    MTL_TOML_ARRAY,
    MTL_TOML_STRING,
    MTL_TOML_INTEGER,
    MTL_TOML_FLOAT,
    MTL_TOML_BOOLEAN,
    MTL_TOML_DATE,
    MTL_TOML_TIME,
    MTL_TOML_DATE_TIME
} mtl_toml_kind;

/* One key and its value. Tables are walked (their keys follow them, in the
 * document's order of keys within each table); arrays are not. */
typedef struct mtl_toml_node {
    /* The index of the table node holding it; -1 for the document's top level. */
    int64_t parent;
    /* Its key, UTF-8, NUL-terminated. */
    const char *key;
    mtl_toml_kind kind;
    /* A string's value (NUL-terminated; `length` bytes, which may hold NULs);
     * a float's literal as written (`0.60`). NULL otherwise. */
    const char *text;
    size_t length;
    int64_t integer;
    double number;
    int boolean;
    /* Where its key is written, from 1. */
    int line;
    int column;
} mtl_toml_node;

/* Parses `length` bytes of `text`. NULL when they are no TOML: then `error`
 * holds toml++'s description (NUL-terminated, cut to `error_size`) and
 * `line`/`column` its place. */
mtl_toml *mtl_toml_parse(const char *text, size_t length, char *error, size_t error_size, int *line, int *column) MTL_NOEXCEPT;

size_t mtl_toml_count(const mtl_toml *document) MTL_NOEXCEPT;
const mtl_toml_node *mtl_toml_node_at(const mtl_toml *document, size_t index) MTL_NOEXCEPT;
void mtl_toml_free(mtl_toml *document) MTL_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
