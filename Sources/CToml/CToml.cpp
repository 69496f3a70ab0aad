// The C functions of CToml.h over toml++: the one translation unit that includes it.
#include "CToml.h"

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

struct mtl_toml {
    std::vector<mtl_toml_node> nodes;
    // Stable storage for the keys and texts the nodes point into.
    std::deque<std::string> strings;
};

namespace {

const char *keep(mtl_toml &document, std::string_view text) {
    document.strings.emplace_back(text);
    return document.strings.back().c_str();
}

// The characters a float is written with, from where toml++ says it starts.
std::string_view floatLiteral(std::string_view source, const toml::source_position &begin) {
    size_t offset = 0;
    for (uint32_t line = 1; line < begin.line && offset < source.size(); ++line) {
        size_t end = source.find('\n', offset);
        if (end == std::string_view::npos) return {};
        offset = end + 1;
    }
    // Columns count code points: step over the ones before.
    for (uint32_t column = 1; column < begin.column && offset < source.size(); ++column) {
        ++offset;
        while (offset < source.size() && (static_cast<unsigned char>(source[offset]) & 0xC0) == 0x80) ++offset;
    }
    size_t end = offset;
    while (end < source.size() && std::strchr("0123456789+-._eEinfa", source[end]) != nullptr && source[end] != '\0') ++end;
    return source.substr(offset, end - offset);
}

void walk(mtl_toml &document, std::string_view source, const toml::table &table, int64_t parent) {
    for (auto &&[key, node] : table) {
        mtl_toml_node entry{};
        entry.parent = parent;
        entry.key = keep(document, key.str());
        entry.line = static_cast<int>(key.source().begin.line);
        entry.column = static_cast<int>(key.source().begin.column);
        switch (node.type()) {
        case toml::node_type::table: entry.kind = MTL_TOML_TABLE; break;
        case toml::node_type::array: entry.kind = MTL_TOML_ARRAY; break;
        case toml::node_type::string: {
            entry.kind = MTL_TOML_STRING;
            const std::string &value = node.as_string()->get();
            entry.text = keep(document, value);
            entry.length = value.size();
            break;
        }
        case toml::node_type::integer: entry.kind = MTL_TOML_INTEGER; entry.integer = node.as_integer()->get(); break;
        case toml::node_type::floating_point: {
            entry.kind = MTL_TOML_FLOAT;
            entry.number = node.as_floating_point()->get();
            std::string_view literal = floatLiteral(source, node.source().begin);
            entry.text = keep(document, literal);
            entry.length = literal.size();
            break;
        }
        case toml::node_type::boolean: entry.kind = MTL_TOML_BOOLEAN; entry.boolean = node.as_boolean()->get() ? 1 : 0; break;
        case toml::node_type::date: entry.kind = MTL_TOML_DATE; break;
        case toml::node_type::time: entry.kind = MTL_TOML_TIME; break;
        default: entry.kind = MTL_TOML_DATE_TIME; break;
        }
        document.nodes.push_back(entry);
        if (auto *inner = node.as_table()) walk(document, source, *inner, static_cast<int64_t>(document.nodes.size() - 1));
    }
}

} // namespace

extern "C" {

mtl_toml *mtl_toml_parse(const char *text, size_t length, char *error, size_t error_size, int *line, int *column) noexcept {
    try {
        std::string_view source(text, length);
        toml::table table = toml::parse(source);
        auto *document = new mtl_toml();
        walk(*document, source, table, -1);
        return document;
    } catch (const toml::parse_error &failure) {
        if (error != nullptr && error_size > 0) {
            std::string_view description = failure.description();
            size_t count = description.size() < error_size - 1 ? description.size() : error_size - 1;
            std::memcpy(error, description.data(), count);
            error[count] = '\0';
        }
        if (line != nullptr) *line = static_cast<int>(failure.source().begin.line);
        if (column != nullptr) *column = static_cast<int>(failure.source().begin.column);
        return nullptr;
    } catch (...) {
        if (error != nullptr && error_size > 0) std::strncpy(error, "out of memory", error_size - 1), error[error_size - 1] = '\0';
        if (line != nullptr) *line = 1;
        if (column != nullptr) *column = 1;
        return nullptr;
    }
}

size_t mtl_toml_count(const mtl_toml *document) noexcept { return document->nodes.size(); }

const mtl_toml_node *mtl_toml_node_at(const mtl_toml *document, size_t index) noexcept { return &document->nodes[index]; }

void mtl_toml_free(mtl_toml *document) noexcept { delete document; }

} // extern "C"
