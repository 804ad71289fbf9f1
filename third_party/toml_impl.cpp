// toml++'s implementation, compiled once into perflint instead of linking libtomlplusplus.so: an
// installed perflint (tarball, wheel, .deb) then needs toml++ only at build time. Every other file
// includes <toml++/toml.h> with TOML_HEADER_ONLY=0 (the perflint_toml target sets it) and gets the
// declarations only.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
