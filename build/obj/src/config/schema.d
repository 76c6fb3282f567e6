build/obj/src/config/schema.o: src/config/schema.c src/config/schema.h \
 src/config/cfg.h src/config/node.h src/util/err.h src/config/yaml_io.h
src/config/schema.h:
src/config/cfg.h:
src/config/node.h:
src/util/err.h:
src/config/yaml_io.h:
