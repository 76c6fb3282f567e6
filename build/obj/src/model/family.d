build/obj/src/model/family.o: src/model/family.c src/model/family.h \
 src/model/shape.h
src/model/family.h:
src/model/shape.h:
