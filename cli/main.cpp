// perflint's entry point: everything lives in perflint_core (cli/app.hpp).
#include "cli/app.hpp"

int main(int argc, char** argv) { return perflint::run_cli(argc, argv); }
