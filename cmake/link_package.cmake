# Mirrors python/ember into the build folder as symlinks, so the freshly built _C and
# the Python sources import together as one package during development.
file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/*.py ${SRC}/py.typed)
foreach(f ${files})
  get_filename_component(dir ${DST}/${f} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  if(NOT EXISTS ${DST}/${f})
    file(CREATE_LINK ${SRC}/${f} ${DST}/${f} SYMBOLIC)
  endif()
endforeach()
