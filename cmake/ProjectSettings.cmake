add_library(capsim_settings INTERFACE)
target_compile_definitions(capsim_settings INTERFACE $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>)
if(CAPSIM_SANITIZE)
  target_compile_options(capsim_settings INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(capsim_settings INTERFACE -fsanitize=address,undefined)
endif()
