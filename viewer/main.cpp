// network_viewer: a thin main over the nt_viewer library.
#include "app.hpp"

int main(int argc, char** argv) { return ntv::run(argc, argv); }
