// JSON Schema string formats that are regular languages, as the contents
// of a JSON string (what lies between the quotes, all raw characters):
//
//   date       RFC 3339 full-date, years 0001-9999, days checked against the
//              month, 29 February only in leap years (the proleptic
//              Gregorian calendar of Python's date.fromisoformat)
//   time       RFC 3339 full-time: hh:mm:ss, optional fraction of 1-9
//              digits, then Z or an offset; hours 00-23, no leap second;
//              't'/'z' in either case
//   date-time  date, 'T' (either case), time
//   uuid       8-4-4-4-12 hex digits, either case
//   ipv4       four decimal octets 0-255 without leading zeros
//   email      dot-atom local part (RFC 5322 atext) '@' host name labels,
//              within RFC 5321's lengths (64 and 255 bytes)
//   uri        RFC 3986 URI: scheme ':' hier-part ['?' query] ['#' fragment]
//   uri-reference  a URI or an RFC 3986 relative reference
//
// uri and uri-reference are rfc3986-validator's (the checker jsonschema
// uses for them) but for IP-literal hosts ("http://[::1]/"), which the
// grammar does not write, and the trailing newline its '$' lets through.
//
// Each is what the `jsonschema` package's format checker accepts, or
// (uuid, email, time) a subset of it: its uuid check also takes stray
// hyphens and braces, its email check only asks for an '@', and it takes
// fractions of any length. The bounds keep a model from running on in an
// address or a fraction for ever.
#pragma once

#include <string_view>

#include "pagoda/structured/expr.h"

namespace pagoda::structured {

// The contents of strings in `format`; nullptr for formats not listed above.
ExprPtr FormatStringContents(std::string_view format);

}  // namespace pagoda::structured
