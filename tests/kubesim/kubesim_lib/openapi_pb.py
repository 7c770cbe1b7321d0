"""A Swagger 2.0 document (as JSON-ready dicts) encoded as gnostic's
`openapi.v2.Document` protobuf message: what kube-apiserver sends for
/openapi/v2 when asked for
`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`.

Why: client-go's DiscoveryClient.OpenAPISchema() asks for exactly that type
and proto.Unmarshal()s the body whatever the Content-Type says, so JSON
would fail there ("cannot parse invalid wire-format data"). kubectl reads
/openapi/v2 that way for client-side validation before 1.27 and for its
fieldValidation check when /openapi/v3 fails.

Only the parts of the Swagger grammar the kubesim documents use are known;
any other key raises KeyError, so a document that grows a field this module
cannot encode fails its test instead of losing the field silently. Field
numbers are those of gnostic's openapiv2/OpenAPIv2.proto. Vendor extensions
(`x-…`) become NamedAny {name, Any {yaml}} with the value written as JSON,
which is YAML too (kube-openapi and kubectl read that field with a YAML
parser). Empty strings and false are left out, as proto3 does.
"""

import json

# message -> {JSON key: (field number, encoding)}; encoding is "string",
# "bool", "strings" (repeated string), a message name, or [message name]
# (repeated). "x-" names the field of the message's vendor extensions.
FIELDS = {
    "Document": {"swagger": (1, "string"), "info": (2, "Info"), "host": (3, "string"),
                 "basePath": (4, "string"), "schemes": (5, "strings"),
                 "consumes": (6, "strings"), "produces": (7, "strings"),
                 "paths": (8, "Paths"), "definitions": (9, "Definitions"), "x-": 16},
    "Info": {"title": (1, "string"), "version": (2, "string"), "description": (3, "string"),
             "x-": 7},
    "PathItem": {"$ref": (1, "string"), "get": (2, "Operation"), "put": (3, "Operation"),
                 "post": (4, "Operation"), "delete": (5, "Operation"),
                 "options": (6, "Operation"), "head": (7, "Operation"),
                 "patch": (8, "Operation"), "parameters": (9, ["ParametersItem"]), "x-": 10},
    "Operation": {"tags": (1, "strings"), "summary": (2, "string"),
                  "description": (3, "string"), "operationId": (5, "string"),
                  "produces": (6, "strings"), "consumes": (7, "strings"),
                  "parameters": (8, ["ParametersItem"]), "responses": (9, "Responses"),
                  "schemes": (10, "strings"), "deprecated": (11, "bool"), "x-": 13},
    "BodyParameter": {"description": (1, "string"), "name": (2, "string"), "in": (3, "string"),
                      "required": (4, "bool"), "schema": (5, "Schema"), "x-": 6},
    "QueryParameterSubSchema": {"required": (1, "bool"), "in": (2, "string"),
                                "description": (3, "string"), "name": (4, "string"),
                                "allowEmptyValue": (5, "bool"), "type": (6, "string"),
                                "format": (7, "string"), "uniqueItems": (20, "bool"), "x-": 23},
    "PathParameterSubSchema": {"required": (1, "bool"), "in": (2, "string"),
                               "description": (3, "string"), "name": (4, "string"),
                               "type": (5, "string"), "format": (6, "string"),
                               "uniqueItems": (19, "bool"), "x-": 22},
    "Response": {"description": (1, "string"), "schema": (2, "SchemaItem"), "x-": 5},
    "JsonReference": {"$ref": (1, "string"), "description": (2, "string")},
    "Schema": {"$ref": (1, "string"), "format": (2, "string"), "title": (3, "string"),
               "description": (4, "string"), "uniqueItems": (16, "bool"),
               "required": (19, "strings"),
               "additionalProperties": (21, "AdditionalPropertiesItem"),
               "type": (22, "TypeItem"), "items": (23, "ItemsItem"), "allOf": (24, ["Schema"]),
               "properties": (25, "Properties"), "readOnly": (27, "bool"), "x-": 31},
}


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _bytes_field(num, data):
    return _varint(num << 3 | 2) + _varint(len(data)) + data


def _string(num, s):
    return _bytes_field(num, s.encode()) if s else b""


def _named(num, name, value_bytes):
    """A NamedX {name = 1, value = 2} entry of a repeated field `num`."""
    return _bytes_field(num, _string(1, name) + _bytes_field(2, value_bytes))


def _vendor(num, name, value):
    return _named(num, name, _string(2, json.dumps(value, separators=(",", ":"))))


def _map(obj, num, value_msg, vendor_num=None):
    """A JSON object whose keys are names: repeated Named<value_msg>."""
    out = b""
    for k, v in obj.items():
        if k.startswith("x-") and vendor_num is not None:
            out += _vendor(vendor_num, k, v)
        else:
            out += _named(num, k, encode(value_msg, v))
    return out


def _oneof(msg, obj):
    """The messages that hold one of several alternatives, picked as
    gnostic's compiler picks them from the JSON."""
    if msg == "Paths":
        return _map(obj, 2, "PathItem", vendor_num=1)
    if msg in ("Definitions", "Properties"):
        return _map(obj, 1, "Schema")
    if msg == "Responses":
        return _map(obj, 1, "ResponseValue", vendor_num=2)
    if msg in ("ParametersItem", "ResponseValue"):
        if "$ref" in obj:
            return _bytes_field(2, encode("JsonReference", obj))
        return _bytes_field(1, encode("Parameter" if msg == "ParametersItem" else "Response",
                                      obj))
    if msg == "Parameter":
        if obj.get("in") == "body":
            return _bytes_field(1, encode("BodyParameter", obj))
        return _bytes_field(2, encode("NonBodyParameter", obj))
    if msg == "NonBodyParameter":
        where = {"query": (3, "QueryParameterSubSchema"),
                 "path": (4, "PathParameterSubSchema")}[obj["in"]]
        return _bytes_field(where[0], encode(where[1], obj))
    if msg == "SchemaItem":
        if obj.get("type") == "file":
            raise KeyError("SchemaItem: file schemas are not encoded")
        return _bytes_field(1, encode("Schema", obj))
    if msg == "AdditionalPropertiesItem":
        if isinstance(obj, bool):
            return _varint(2 << 3) + _varint(int(obj))
        return _bytes_field(1, encode("Schema", obj))
    if msg == "TypeItem":
        return b"".join(_string(1, t) for t in ([obj] if isinstance(obj, str) else obj))
    if msg == "ItemsItem":
        return b"".join(_bytes_field(1, encode("Schema", s))
                        for s in ([obj] if isinstance(obj, dict) else obj))
    return None


def encode(msg, obj):
    """The protobuf bytes of message `msg` for the JSON value obj."""
    special = _oneof(msg, obj)
    if special is not None:
        return special
    fields = FIELDS[msg]
    out = b""
    for key in sorted(obj, key=lambda k: fields[k][0] if k in fields else 1 << 30):
        value = obj[key]
        if key.startswith("x-"):
            out += _vendor(fields["x-"], key, value)
            continue
        if key not in fields:
            raise KeyError("%s: no field %r" % (msg, key))
        num, how = fields[key]
        if how == "string":
            out += _string(num, value)
        elif how == "bool":
            out += (_varint(num << 3) + b"\x01") if value else b""
        elif how == "strings":
            out += b"".join(_bytes_field(num, s.encode()) for s in value)
        elif isinstance(how, list):
            out += b"".join(_bytes_field(num, encode(how[0], v)) for v in value)
        else:
            out += _bytes_field(num, encode(how, value))
    return out


def encode_document(doc):
    return encode("Document", doc)
