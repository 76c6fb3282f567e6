build/obj/src/config/cfg.o: src/config/cfg.c src/config/cfg.h \
 src/config/node.h src/util/err.h src/config/interp.h \
 src/config/override.h src/config/schema.h src/config/yaml_io.h \
 src/util/fsutil.h
src/config/cfg.h:
src/config/node.h:
src/util/err.h:
src/config/interp.h:
src/config/override.h:
src/config/schema.h:
src/config/yaml_io.h:
src/util/fsutil.h:
