// network_viewer: a thin main over the nt_viewer library.
#include "nt/viewer/app.hpp"

int main(int argc, char** argv) { return nt::viewer::run(argc, argv); }
