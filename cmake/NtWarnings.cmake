# nt_warnings: the warning set every target of the project links. -Wnull-dereference is left
# out: GCC 12 at -O2 reports it for plain std::vector and std::string copies (false positives in
# libstdc++ and CLI11 inlined into our code) that would hide real warnings.
add_library(nt_warnings INTERFACE)
target_compile_options(nt_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
     -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual -Wdouble-promotion -Wformat=2>)
if(NT_FUZZ)
  # Every object is instrumented for coverage; the fuzz targets add libFuzzer's main.
  target_compile_options(nt_warnings INTERFACE -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                                               -fno-sanitize-recover=undefined)
  target_link_options(nt_warnings INTERFACE -fsanitize=address,undefined)
elseif(NT_SANITIZE)
  target_compile_options(nt_warnings INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(nt_warnings INTERFACE -fsanitize=address,undefined)
endif()
