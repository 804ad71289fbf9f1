# Writes a C++ file holding every docs/rules/*.md as a raw string, keyed by file stem (the rule code).
file(GLOB docs ${DOCS_DIR}/*.md)
list(SORT docs)
set(body "// Generated from docs/rules/*.md by cmake/embed_docs.cmake. Do not edit.\n")
string(APPEND body "#include \"rules/docs.hpp\"\nnamespace perflint {\nconst std::vector<EmbeddedDoc>& embedded_rule_docs() {\n  static const std::vector<EmbeddedDoc> docs = {\n")
foreach(doc ${docs})
  get_filename_component(stem ${doc} NAME_WE)
  file(READ ${doc} content)
  # Raw string delimiter unlikely to appear in Markdown.
  string(APPEND body "    {\"${stem}\", R\"PFLDOC(${content})PFLDOC\"},\n")
endforeach()
string(APPEND body "  };\n  return docs;\n}\n}  // namespace perflint\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
