build/obj/src/config/yaml_io.o: src/config/yaml_io.c src/config/yaml_io.h \
 src/config/node.h src/util/err.h src/util/fsutil.h
src/config/yaml_io.h:
src/config/node.h:
src/util/err.h:
src/util/fsutil.h:
