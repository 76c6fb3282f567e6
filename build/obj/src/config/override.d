build/obj/src/config/override.o: src/config/override.c \
 src/config/override.h src/config/node.h src/util/err.h \
 src/config/yaml_io.h
src/config/override.h:
src/config/node.h:
src/util/err.h:
src/config/yaml_io.h:
